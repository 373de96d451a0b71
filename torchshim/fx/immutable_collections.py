"""`torch.fx.immutable_collections`: `immutable_list` and `immutable_dict`, a list and a dict whose
mutating methods raise PyTorch's TypeError; hashable (as a tuple / a frozenset of items), copyable and
picklable. (torchshim's fx Nodes keep their own args/kwargs containers; these are for user code.)"""

__all__ = ["immutable_list", "immutable_dict"]

_MUTATION = ("'{}' object does not support mutation. If you are attempting to modify the kwargs or args of "
             "a torch.fx.Node object,\ninstead create a new copy of it and assign the copy to the node:\n\n"
             "    new_args = ...  # copy and mutate args\n    node.args = new_args")


def _no_mutation(self, *args, **kwargs):
    raise TypeError(_MUTATION.format(type(self).__name__))


class immutable_list(list):
    """`immutable_list(iterable=())`: a list that refuses mutation (append, `x[i] = v`, `+=`, sort, ...)."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(self),))


class immutable_dict(dict):
    """`immutable_dict(...)`: a dict that refuses mutation (`d[k] = v`, update, pop, `|=`, ...)."""

    __setitem__ = __delitem__ = __ior__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(frozenset(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))
