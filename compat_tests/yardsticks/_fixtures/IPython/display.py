"""`IPython.display` stand-in (test fixture): a script has no notebook output to show or clear.

`display` and `clear_output` count their calls (the d2l tests may check that figures were shown).
"""
calls = {"display": 0, "clear_output": 0}


def display(*objs, **kwargs):
    calls["display"] += 1


def clear_output(wait=False):
    calls["clear_output"] += 1
