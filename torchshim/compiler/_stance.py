"""torch.compile's global switches: `torch.compiler.set_stance` and `torch._dynamo.config`'s limits."""

__all__ = ["stance", "set_stance", "force_eager", "fail_on_recompile", "recompile_limit", "config"]

_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
            "aot_eager_then_compile")


class _Config:
    """`torch._dynamo.config`: the settings scripts touch. `suppress_errors` (fall back to eager on a failed
    trace: torchshim always does, with a warning, unless fullgraph=True), `recompile_limit` (alias
    `cache_size_limit`): programs kept per compiled function before it runs eagerly."""

    def __init__(self):
        self.suppress_errors = False
        self.recompile_limit = 8
        self.accumulated_recompile_limit = 256
        self.verbose = False
        self.capture_scalar_outputs = False
        self.capture_dynamic_output_shape_ops = False
        self.optimize_ddp = True
        self.automatic_dynamic_shapes = True
        self.assume_static_by_default = True
        self.guard_nn_modules = True

    @property
    def cache_size_limit(self):
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, v):
        self.recompile_limit = v


config = _Config()
stance = ["default"]


def set_stance(name):
    if name not in _STANCES:
        raise RuntimeError(f"invalid stance: {name!r}; expected one of {', '.join(_STANCES)}")
    stance[0] = name


def force_eager():
    return stance[0] == "force_eager"


def fail_on_recompile():
    return stance[0] == "fail_on_recompile"


def recompile_limit():
    return config.recompile_limit
