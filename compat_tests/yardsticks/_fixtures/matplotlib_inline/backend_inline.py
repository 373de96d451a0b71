"""`matplotlib_inline.backend_inline` stand-in (test fixture): there is no notebook to set a format for."""
_formats = []


def set_matplotlib_formats(*formats, **kwargs):
    """Record the requested figure formats (d2l asks for 'svg'); nothing is rendered here."""
    _formats[:] = formats
