"""`torch.ops.profiler`: the record_function ops that torch.fx graphs call to open and close a profiler range
(`_record_function_enter(str name, str? args=None) -> Tensor`, `_record_function_enter_new(...) ->
_RecordFunction`, `_record_function_exit(handle) -> ()` with its `_RecordFunction` overload), on torchshim's
`record_function`.

Difference from PyTorch: `_record_function_enter`'s handle is a 0-element uint8 Tensor that carries the range
(PyTorch's holds the C++ RecordFunction's bytes).
"""
from ..ops._namespace import define
from ..ops._schema import parse_schema
from .. import _api
from ._record import record_function

_ENTER, _EXIT = record_function.__enter__, record_function.__exit__  # as defined (fx tracers patch them)


class _RecordFunction:
    """`torch.classes.profiler._RecordFunction`: what `_record_function_enter_new` returns."""

    def __init__(self, rf):
        self._rf = rf

    def __repr__(self):
        return "ScriptObject <__torch__.torch.classes.profiler._RecordFunction>"


def _open(name, args):
    rf = record_function(name, args)
    _ENTER(rf)
    return rf


_S_ENTER = parse_schema("profiler::_record_function_enter(str name, str? args=None) -> Tensor")
_S_ENTER_NEW = parse_schema("profiler::_record_function_enter_new(str name, str? args=None) -> "
                            "__torch__.torch.classes.profiler._RecordFunction")
_S_EXIT = parse_schema("profiler::_record_function_exit(Tensor handle) -> ()")
_S_EXIT_RF = parse_schema("profiler::_record_function_exit._RecordFunction("
                          "__torch__.torch.classes.profiler._RecordFunction record) -> ()")


def _record_function_enter(*args, **kwargs):
    name, a = _S_ENTER.bind(args, kwargs)
    handle = _api.empty(0, dtype=_api.uint8)
    handle.__dict__["_record_function"] = _open(name, a)
    return handle


def _record_function_enter_new(*args, **kwargs):
    name, a = _S_ENTER_NEW.bind(args, kwargs)
    return _RecordFunction(_open(name, a))


def _record_function_exit(*args, **kwargs):
    (handle,) = _S_EXIT.bind(args, kwargs)
    rf = handle.__dict__.get("_record_function")
    if rf is None:
        raise RuntimeError("_record_function_exit: the handle was not made by _record_function_enter")
    _EXIT(rf, None, None, None)


def _record_function_exit_rf(*args, **kwargs):
    (record,) = _S_EXIT_RF.bind(args, kwargs)
    _EXIT(record._rf, None, None, None)


define(_S_ENTER, _record_function_enter)
define(_S_ENTER_NEW, _record_function_enter_new)
define(_S_EXIT, _record_function_exit)
define(_S_EXIT_RF, _record_function_exit_rf)
