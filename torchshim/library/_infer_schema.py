"""`torch.library.infer_schema`: a custom op's schema from its function's type hints (PyTorch's errors)."""
import collections.abc
import inspect
import typing

from .. import _api as torch
from ..ops._schema import format_default

__all__ = ["infer_schema"]

_SCALARS = {int: "SymInt", float: "float", bool: "bool", str: "str", torch.dtype: "ScalarType",
            torch.device: "Device"}
_LISTABLE = (int, float, bool)
_NUMBER = typing.Union[int, float, bool]


def _seq_forms(t):
    return [typing.Sequence[t], typing.List[t], collections.abc.Sequence[t], list[t]]


def _arg_types():
    """{annotation: schema type}, in PyTorch's order (the order its error message lists them)."""
    T = torch.Tensor
    out = {T: "Tensor", typing.Optional[T]: "Tensor?"}
    for f in _seq_forms(T):
        out[f] = "Tensor[]"
    for f in _seq_forms(typing.Optional[T]):
        out[f] = "Tensor?[]"
    for py in _LISTABLE:
        s = _SCALARS[py]
        out[py] = s
        out[typing.Optional[py]] = s + "?"
        for f in _seq_forms(py):
            out[f] = s + "[]"
        for f in _seq_forms(py):
            out[typing.Optional[f]] = s + "[]?"
    out[str] = "str"
    out[typing.Optional[str]] = "str?"
    out[int | float | bool] = "Scalar"
    out[typing.Optional[_NUMBER]] = "Scalar?"
    for f in _seq_forms(int | float | bool):
        out[f] = "Scalar[]"
    for py in (torch.dtype, torch.device):
        out[py] = _SCALARS[py]
        out[typing.Optional[py]] = _SCALARS[py] + "?"
    return out


def _ret_types():
    T = torch.Tensor
    out = {T: "Tensor", None: "()", type(None): "()"}
    for f in _seq_forms(T):
        out[f] = "Tensor[]"
    for py in (int, float, bool):
        out[py] = _SCALARS[py]
        for f in _seq_forms(py):
            out[f] = _SCALARS[py] + "[]"
    out[_NUMBER] = "Scalar"
    return out


def _resolve(ann, globalns):
    if isinstance(ann, str):
        try:
            return eval(ann, dict(globalns, torch=torch, Tensor=torch.Tensor, typing=typing))
        except Exception:
            return ann
    return ann


def _number_alias(ann):
    """torch.types.Number / Union[int, float, bool] in any spelling -> one key."""
    if typing.get_origin(ann) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = typing.get_args(ann)
        if set(args) == {int, float, bool}:
            return int | float | bool
        if set(args) == {int, float, bool, type(None)}:
            return typing.Optional[_NUMBER]
    return ann


def _normalize(ann):
    """`X | None` -> Optional[X] (the same key as typing.Optional), number unions -> int | float | bool."""
    ann = _number_alias(ann)
    origin = typing.get_origin(ann)
    if origin is getattr(__import__("types"), "UnionType", None):
        args = typing.get_args(ann)
        if len(args) == 2 and type(None) in args:
            return typing.Optional[next(a for a in args if a is not type(None))]
    return ann


def _sig_text(sig):
    return str(sig).replace("torchshim._tensor.Tensor", "torch.Tensor").replace("torchshim.", "torch.")


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """`torch.library.infer_schema(prototype_function, /, *, mutates_args, op_name=None)`: the schema text
    (`(Tensor x, SymInt y) -> Tensor`, prefixed by `op_name` when given) from the function's type hints."""
    sig = inspect.signature(prototype_function)
    globalns = getattr(prototype_function, "__globals__", {})

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {_sig_text(sig)})")

    arg_types = _arg_types()
    params, seen_kw = [], False
    for name, p in sig.parameters.items():
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if p.kind == inspect.Parameter.KEYWORD_ONLY and not seen_kw:
            params.append("*")
            seen_kw = True
        if p.annotation is inspect.Parameter.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        ann = _normalize(_resolve(p.annotation, globalns))
        if ann not in arg_types:
            valid = ", ".join(_type_text(k) for k in arg_types)
            error_fn(f"Parameter {name} has unsupported type {_type_text(ann)}. The valid types are: "
                     f"dict_keys([{valid}]).")
        schema_type = arg_types[ann]
        if p.kind == inspect.Parameter.KEYWORD_ONLY and schema_type.startswith("Tensor"):
            raise NotImplementedError("custom_op with kwarg-only Tensor args. Please make your tensors not "
                                      "kwarg-only. Got: " + _kwonly_text(prototype_function, sig, arg_types))
        if _mutated(name, mutates_args):
            if not schema_type.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors "
                         "can be mutated")
            schema_type = f"Tensor(a{len(params) - seen_kw}!){schema_type[len('Tensor'):]}"
        if p.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            d = p.default
            if d is not None and not isinstance(d, (int, float, bool, str, torch.dtype, torch.device)):
                error_fn(f"Parameter {name} has an unsupported default value type {type(d)}. Please file an "
                         "issue on GitHub so we can prioritize this.")
            if isinstance(d, str):
                text = f'"{d}"'
            elif isinstance(d, torch.dtype):
                text = str(d).split(".")[-1]
            elif isinstance(d, torch.device):
                text = f'"{d}"'
            elif isinstance(d, float):
                text = repr(d)  # PyTorch's inferred text keeps `2.0` (the parsed schema prints `2.`)
            else:
                text = format_default(d)
            params.append(f"{schema_type} {name}={text}")
    if mutates_args != "unknown":
        if isinstance(mutates_args, str) or not isinstance(mutates_args, collections.abc.Iterable):
            raise ValueError("mutates_args must either be a sequence of the names of the arguments that are "
                             "mutated or the string 'unknown'. ")
        missing = set(mutates_args) - set(sig.parameters)
        if missing:
            error_fn(f"{missing} in mutates_args were not found in the custom op's signature. mutates_args "
                     "should contain the names of all args that the custom op mutates, or just the string "
                     "'unknown' if you don't know.")
    ret = _returns(sig, globalns, error_fn)
    text = f"({', '.join(params)}) -> {ret}"
    return op_name + text if op_name is not None else text


def _mutated(name, mutates_args):
    return mutates_args == "unknown" or (not isinstance(mutates_args, str) and name in mutates_args)


def _kwonly_text(fn, sig, arg_types):
    parts, star = [], False
    for name, p in sig.parameters.items():
        if p.kind == inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        ann = _normalize(_resolve(p.annotation, getattr(fn, "__globals__", {})))
        parts.append(f"{arg_types.get(ann, '?')} {name}")
    ret = _returns(sig, getattr(fn, "__globals__", {}), lambda what: "?")
    return f"{fn.__name__}({', '.join(parts)}) -> {ret}"


def _returns(sig, globalns, error_fn):
    ann = sig.return_annotation
    if ann is inspect.Signature.empty:
        error_fn("No return type annotation was provided. Please add one.")
    ann = _normalize(_resolve(ann, globalns))
    rets = _ret_types()
    if typing.get_origin(ann) is tuple:
        args = typing.get_args(ann)
        out = []
        for a in args:
            a = _normalize(a)
            if a not in rets or a in (None, type(None)):
                error_fn(f"Return has unsupported type {_type_text(ann)}. The valid types are: "
                         f"{_ret_list(rets)}.")
            out.append(rets[a])
        return "(" + ", ".join(out) + ")"
    if ann not in rets:
        error_fn(f"Return has unsupported type {_type_text(ann)}. The valid types are: {_ret_list(rets)}.")
    return rets[ann]


def _ret_list(rets):
    return "{" + ", ".join(f"{_type_text(k)}: '{v}'" for k, v in rets.items()) + "}"


def _type_text(t):
    """A type as PyTorch's error prints it (`<class 'torch.Tensor'>`, `typing.Optional[torch.Tensor]`)."""
    text = repr(t)
    return text.replace("torchshim._tensor.Tensor", "torch.Tensor").replace("torchshim._dtype.dtype",
                                                                            "torch.dtype") \
        .replace("torchshim._device.device", "torch.device")
