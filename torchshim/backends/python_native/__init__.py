"""`torch.backends.python_native`: switches over the Python-DSL kernel overrides (Triton, CuteDSL) that
PyTorch registers from `torch._native`.

As on PyTorch's CPU build, both DSLs are registered but unavailable (`available_dsls == []`) and no
operation is overridden (`get_dsl_operations(...) == []`); the switches (whole DSLs, operation names,
dispatch keys) are stored and read back with PyTorch's API and errors. torchshim runs no DSL kernel, so they
change no result (nor do they in PyTorch without Triton/CuteDSL)."""
import contextlib
import functools
import sys
import types

__all__ = ["DSLController"]

_DSLS = ("cutedsl", "triton")  # registered by PyTorch, available only with their runtimes (GPU)
_disabled = {"dsls": set(), "ops": set(), "keys": set()}


def _check_dsl(name):
    if name not in _DSLS:
        raise ValueError(f"Unknown DSL: {name}. Available DSLs: {_DSLS}")


class DSLController:
    """`pn.triton` / `pn.cutedsl`: `name`, `available` (False here), `version` (None), `enabled` (settable),
    `enable()`, `disable()`, `disabled()` (context manager)."""

    def __init__(self, dsl_name):
        self._dsl_name = dsl_name

    @property
    def name(self):
        return self._dsl_name

    @property
    def available(self):
        return False

    @property
    def version(self):
        return None

    @property
    def enabled(self):
        return self._dsl_name not in _disabled["dsls"]

    @enabled.setter
    def enabled(self, value):
        if value:
            self.enable()
        else:
            self.disable()

    def disable(self):
        """Disable every operation of this DSL."""
        _check_dsl(self._dsl_name)
        _disabled["dsls"].add(self._dsl_name)

    def enable(self):
        """Re-enable this DSL's operations."""
        _disabled["dsls"].discard(self._dsl_name)

    @contextlib.contextmanager
    def disabled(self):
        """The DSL disabled for the block (re-enabled after when it was enabled before)."""
        was = self.enabled
        try:
            self.disable()
            yield
        finally:
            if was:
                self.enable()

    def __repr__(self):
        status = "available" if self.available else "unavailable"
        return f"DSLController({self._dsl_name}, {status}, {'enabled' if self.enabled else 'disabled'})"


class PythonNativeModule(types.ModuleType):
    """The module object (PyTorch swaps in a module subclass too): DSL controllers as attributes."""

    @property
    def available_dsls(self):
        """DSLs whose runtime is installed: [] on a CPU machine."""
        return []

    @property
    def all_dsls(self):
        """Every registered DSL: ['cutedsl', 'triton']."""
        return list(_DSLS)

    def get_dsl_operations(self, dsl_name):
        """`get_dsl_operations(dsl_name) -> list[str]`: the operations a DSL overrides: none here."""
        return []

    def disable_operations(self, *op_symbols):
        """Disable operations (by name) across all DSLs."""
        _disabled["ops"].update(op_symbols)

    def enable_operations(self, *op_symbols):
        """Re-enable operations disabled by name."""
        _disabled["ops"].difference_update(op_symbols)

    def disable_dispatch_keys(self, *dispatch_keys):
        """Disable the overrides registered at these dispatch keys ('CPU', 'CUDA', ...)."""
        _disabled["keys"].update(dispatch_keys)

    def enable_dispatch_keys(self, *dispatch_keys):
        """Re-enable the overrides at these dispatch keys."""
        _disabled["keys"].difference_update(dispatch_keys)

    @contextlib.contextmanager
    def operations_disabled(self, *op_symbols):
        """The operations disabled for the block; those disabled before stay disabled after."""
        before = {op for op in op_symbols if op in _disabled["ops"]}
        self.disable_operations(*op_symbols)
        try:
            yield
        finally:
            again = [op for op in op_symbols if op not in before]
            if again:
                self.enable_operations(*again)

    def is_operation_disabled(self, op_symbol):
        return op_symbol in _disabled["ops"]

    def is_dsl_disabled(self, dsl_name):
        return dsl_name in _disabled["dsls"]

    @functools.lru_cache(maxsize=16)  # noqa: B019  one controller per DSL, as PyTorch's
    def _get_dsl_controller(self, name):
        return DSLController(name)

    def __getattr__(self, name):
        if name in _DSLS:
            return self._get_dsl_controller(name)
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __dir__(self):
        return sorted(set(super().__dir__()) | {
            "available_dsls", "all_dsls", "get_dsl_operations", "disable_operations", "enable_operations",
            "disable_dispatch_keys", "enable_dispatch_keys", "operations_disabled", "is_operation_disabled",
            "is_dsl_disabled", *_DSLS})


sys.modules[__name__].__class__ = PythonNativeModule
