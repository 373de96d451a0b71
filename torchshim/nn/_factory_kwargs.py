"""`torch.nn.factory_kwargs`."""

__all__ = ["factory_kwargs"]


def factory_kwargs(kwargs):
    """`torch.nn.factory_kwargs(kwargs)` -> the dict of factory keywords (device, dtype, memory_format, and
    those of an explicit `factory_kwargs` entry) to pass to `torch.empty` and friends; TypeError on any other
    key or a key given twice."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r
