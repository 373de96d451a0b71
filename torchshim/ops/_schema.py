"""Operator schemas as PyTorch writes them (`ns::name.overload(Tensor x, int[] s=[1, 2], *, bool k=True) ->
(Tensor, Tensor)`): `parse_schema(text)` gives a `FunctionSchema` (`name`, `overload_name`, `arguments`,
`returns`, `str()` in PyTorch's spelling), whose `bind(args, kwargs)` checks a call against it with the
dispatcher's messages (`d::f() is missing value for argument 'y'. Declaration: ...`).

Used by `torch.ops.<ns>.<op>` (ops/_namespace.py) and `torch.library` (custom ops, `Library.define`).
Difference from PyTorch: alias sets are kept as text (`Tensor(a!)`); a value for `int`/`float`/`bool` given as
a Tensor is passed on as that Tensor's Python number (as PyTorch does) unless it is a jax tracer, then as is.
"""
import re

__all__ = ["FunctionSchema", "Argument", "SchemaType", "parse_schema", "format_default"]

_TOKEN = re.compile(r"\s*(?:(->)|(::)|([A-Za-z_][A-Za-z0-9_.]*)|(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?\.\d+)"
                    r"|(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')|(\S))")
_KINDS = ("arrow", "::", "ident", "number", "string", None)

# a schema base type -> the Python-style name PyTorch's argument errors print
_PY_NAMES = {"SymInt": "int", "ScalarType": "int", "Layout": "int", "MemoryFormat": "int", "Scalar": "number",
             "Device": "Device", "Generator": "Generator", "str": "str", "bool": "bool", "float": "float",
             "int": "int", "Tensor": "Tensor", "Dimname": "str", "complex": "complex"}


class SchemaType:
    """One argument or return type: `base` (`Tensor`, `int`, `SymInt`, ...), `alias` (`a!` or None),
    `list_size` (None: not a list; '' or a number: `T[]` / `T[N]`), `optional` (outer `?`),
    `elem_optional` (`Tensor?[]`)."""

    def __init__(self, base, alias=None, list_size=None, optional=False, elem_optional=False):
        self.base, self.alias, self.list_size = base, alias, list_size
        self.optional, self.elem_optional = optional, elem_optional

    @property
    def is_mutable(self):
        return self.alias is not None and self.alias.endswith("!")

    def __str__(self):
        s = self.base + (f"({self.alias})" if self.alias else "")
        if self.list_size is not None:
            s += ("?" if self.elem_optional else "") + f"[{self.list_size}]"
        return s + ("?" if self.optional else "")

    def python_name(self):
        """The type as PyTorch's argument errors print it: `Optional[List[int]]`, `Tensor`, `int`."""
        s = _PY_NAMES.get(self.base, self.base)
        if self.list_size is not None:
            s = f"List[{'Optional[' + s + ']' if self.elem_optional else s}]"
        return f"Optional[{s}]" if self.optional else s


class Argument:
    """A schema argument: `name`, `type` (SchemaType), `default_value` (a Python value; `has_default`),
    `kwarg_only`, `alias_info` (the alias text or None), `is_write` (mutable alias)."""

    def __init__(self, name, type, default=None, has_default=False, kwarg_only=False):
        self.name, self.type, self.default_value = name, type, default
        self.has_default, self.kwarg_only = has_default, kwarg_only

    @property
    def alias_info(self):
        return self.type.alias

    @property
    def is_write(self):
        return self.type.is_mutable

    def __str__(self):
        s = f"{self.type} {self.name}" if self.name else str(self.type)
        return s + (f"={format_default(self.default_value, self.type)}" if self.has_default else "")

    __repr__ = __str__


def format_default(v, t=None):
    """A default value as PyTorch prints it in a schema (`2.`, `False`, `"a"`, `[1, 2]`, `None`)."""
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r[:-1] if r.endswith(".0") else r
    if isinstance(v, str):
        return v if t is not None and t.base in ("ScalarType", "Layout", "MemoryFormat") else f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_default(x) for x in v) + "]"
    return str(v)


class FunctionSchema:
    """`torch._C.FunctionSchema`: `name` (`ns::op`), `overload_name`, `arguments`, `returns`; `str()` is
    PyTorch's text; `bind(args, kwargs)` -> the values in argument order (defaults filled)."""

    def __init__(self, name, overload_name, arguments, returns):
        self.name, self.overload_name = name, overload_name
        self.arguments, self.returns = arguments, returns

    @property
    def is_mutable(self):
        return any(a.is_write for a in self.arguments)

    def _qual(self):
        return self.name + (f".{self.overload_name}" if self.overload_name else "")

    def __str__(self):
        parts, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        if len(self.returns) == 1 and not self.returns[0].name:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self._qual()}({', '.join(parts)}) -> {rets}"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, FunctionSchema) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    def bind(self, args, kwargs):
        """The call's values in argument order, or RuntimeError with the dispatcher's message."""
        decl = f"Declaration: {self}"
        if len(args) + len(kwargs) > len(self.arguments):
            raise RuntimeError(f"{self.name}() expected at most {len(self.arguments)} argument(s) but "
                               f"received {len(args) + len(kwargs)} argument(s). {decl}")
        for a in self.arguments[:len(args)]:
            if a.name in kwargs:
                raise RuntimeError(f"Argument '{a.name}' specified both as positional and keyword argument. "
                                   f"Schema: {self}")
        out, used = [], 0
        for i, a in enumerate(self.arguments):
            if i < len(args) and not a.kwarg_only:
                v = args[i]
            elif a.name in kwargs:
                v = kwargs[a.name]
                used += 1
            elif a.has_default:
                v = a.default_value
            else:
                raise RuntimeError(f"{self.name}() is missing value for argument '{a.name}'. {decl}")
            out.append(_check(self, i, a, v))
        if used < len(kwargs):
            names = {a.name for a in self.arguments}
            bad = next(k for k in kwargs if k not in names)
            raise RuntimeError(f"Unknown keyword argument '{bad}' for operator '{self._qual()}'. Schema: "
                               f"{self}")
        return out


# ----- argument checks ------------------------------------------------------------------------------------
def _is_tensor(v):
    from .._tensor import Tensor
    return isinstance(v, Tensor)


def _number(v, kind):
    """v as a value of scalar `kind` ('int', 'float', 'bool', 'Scalar'), or raise TypeError."""
    import numbers
    if _is_tensor(v):
        import jax
        if isinstance(v._value, jax.core.Tracer) or v.numel() != 1:
            return v
        return v.item()
    if kind == "bool":
        if isinstance(v, (bool, numbers.Integral)):
            return bool(v) if not isinstance(v, bool) else v
    elif kind == "int":
        if isinstance(v, numbers.Integral):
            return int(v)
    elif kind == "float":
        if isinstance(v, numbers.Real):
            return float(v) if not isinstance(v, bool) else v
    elif isinstance(v, numbers.Number):  # Scalar
        return v
    raise TypeError


_INTS = ("int", "SymInt")


def _one(t, v):
    """Check (and convert) one non-list value of base type `t.base`; TypeError when it doesn't fit."""
    b = t.base
    if b == "Tensor":
        if not _is_tensor(v):
            raise TypeError
        return v
    if b in _INTS:
        return _number(v, "int")
    if b in ("float", "bool"):
        return _number(v, b)
    if b == "Scalar":
        return _number(v, "Scalar")
    if b == "str":
        if not isinstance(v, str):
            raise TypeError
        return v
    if b == "ScalarType":
        from .._dtype import dtype
        if not isinstance(v, dtype):
            raise TypeError
        return v
    if b == "Device":
        from .._device import device
        if not isinstance(v, (device, str, int)):
            raise TypeError
        return v
    if b.startswith("__torch__.torch.classes."):  # a TorchBind class: an instance of the class so named
        if type(v).__name__ != b.rpartition(".")[2]:
            raise TypeError
        return v
    return v  # Generator, Layout, Any: passed as given


def _check(schema, pos, a, v):
    t = a.type
    if v is None and (t.optional or (a.has_default and a.default_value is None)):
        return None
    try:
        if t.list_size is None:
            return _one(t, v)
        if t.base in _INTS and t.list_size and not isinstance(v, (list, tuple)) and not _is_tensor(v):
            return [_one(t, v)] * int(t.list_size)  # int[2] accepts one int for both
        if not isinstance(v, (list, tuple)):
            raise TypeError
        return [None if (x is None and t.elem_optional) else _one(t, x) for x in v]
    except TypeError:
        pass
    if t.base == "Tensor" and t.list_size is None:
        details = f"Cast error details: Unable to cast {v!r} to Tensor"
    elif t.list_size is not None and not isinstance(v, (list, tuple)):
        details = f" Python error details: TypeError: '{type(v).__name__}' object is not iterable"
    else:
        details = (f"Cast error details: Unable to cast Python instance of type {type(v)} to C++ type '?' "
                   "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")
    raise RuntimeError(f"{schema.name}() Expected a value of type '{t.python_name()}' for argument "
                       f"'{a.name}' but instead found type '{type(v).__name__}'.\nPosition: {pos}\n"
                       f"Value: {v!r}\nDeclaration: {schema}\n{details}")


# ----- parsing ----------------------------------------------------------------------------------------------
class _Lexer:
    def __init__(self, text):
        self.text, self.toks = text, []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                break
            kind = next(k for k, g in zip(_KINDS, m.groups()) if g is not None)
            tok = m.group(m.lastindex)
            self.toks.append((kind or tok, tok, m.start(m.lastindex)))
            pos = m.end()
        self.toks.append(("eof", "", len(text.rstrip())))
        self.i = 0

    def peek(self, value=None):
        kind, tok, _ = self.toks[self.i]
        return tok == value and kind not in ("string",) if value is not None else tok

    def kind(self):
        return self.toks[self.i][0]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t[1]

    def expect(self, value):
        if not self.peek(value):
            self.fail(value)
        return self.next()

    def fail(self, expected):
        kind, tok, at = self.toks[self.i]
        found = {"arrow": "arrow", "eof": "eof", "ident": "ident", "number": "number",
                 "string": "string"}.get(kind, tok)
        line = self.text
        raise RuntimeError(f"expected {expected} but found '{found}' here:\n{line}\n"
                           f"{' ' * at}{'~' * max(len(tok), 1)} <--- HERE\n")

    def ident(self):
        if self.kind() != "ident":
            self.fail("ident")
        return self.next()


def _parse_type(lx):
    base = lx.ident()
    alias = None
    if lx.peek("("):
        lx.next()
        alias = ""
        while not lx.peek(")"):
            if lx.kind() == "eof":
                lx.fail(")")
            alias += lx.next()
        lx.next()
    t = SchemaType(base, alias)
    if lx.peek("?") and lx.toks[lx.i + 1][1] == "[":
        lx.next()
        t.elem_optional = True
    if lx.peek("["):
        lx.next()
        t.list_size = lx.next() if lx.kind() == "number" else ""
        lx.expect("]")
    if lx.peek("?"):
        lx.next()
        t.optional = True
    return t


def _parse_default(lx):
    kind, tok = lx.kind(), lx.peek()
    if tok == "[":
        lx.next()
        items = []
        while not lx.peek("]"):
            items.append(_parse_default(lx))
            if not lx.peek("]"):
                lx.expect(",")
        lx.next()
        return items
    lx.next()
    if kind == "number":
        return float(tok) if any(c in tok for c in ".eE") else int(tok)
    if kind == "string":
        return tok[1:-1]
    if tok in ("True", "False"):
        return tok == "True"
    if tok == "None":
        return None
    return tok  # enum-like names: Mean, contiguous_format, long


def _parse_args(lx, returns=False):
    out, kwarg_only = [], False
    while not lx.peek(")"):
        if lx.peek("*"):
            lx.next()
            kwarg_only = True
        else:
            t = _parse_type(lx)
            name = lx.next() if lx.kind() == "ident" else ""
            if not name and not returns:
                lx.fail("ident")
            has_default, default = False, None
            if lx.peek("="):
                lx.next()
                has_default, default = True, _parse_default(lx)
                if t.base == "float" and type(default) is int:
                    default = float(default)
            out.append(Argument(name, t, default, has_default, kwarg_only))
        if not lx.peek(")"):
            if not lx.peek(","):
                lx.fail(")")
            lx.next()
    lx.next()
    return out


def parse_schema(text, namespace=None):
    """`torch._C.parse_schema`: a FunctionSchema from PyTorch's schema text (`ns::` optional when
    `namespace` is given)."""
    lx = _Lexer(text)
    name = lx.ident()
    if lx.peek("::"):
        lx.next()
        ns, name = name, lx.ident()
    else:
        ns = namespace
    name, _, overload = name.partition(".")
    lx.expect("(")
    args = _parse_args(lx)
    lx.expect("->")
    if lx.peek("("):
        lx.next()
        rets = _parse_args(lx, returns=True)
    else:
        t = _parse_type(lx)
        rets = [Argument(lx.next() if lx.kind() == "ident" else "", t)]
    if lx.kind() != "eof":
        lx.fail("eof")
    return FunctionSchema(f"{ns}::{name}" if ns else name, overload, args, rets)
