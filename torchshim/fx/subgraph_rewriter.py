"""`torch.fx.subgraph_rewriter`: `replace_pattern(gm, pattern, replacement)` finds every non-overlapping
occurrence of `pattern`'s graph in `gm.graph` and replaces it by `replacement`'s graph.

Matching (as PyTorch's): pattern placeholders match any value; other nodes match by op and target
(call_module: the same module class), with equal non-Node arguments; a matched intermediate value may not be
used outside the match. Differences from PyTorch: `replace_pattern_with_filters` and get_attr nodes inside
the replacement are not supported (a replacement reading attributes raises NotImplementedError).
"""
from typing import NamedTuple

from ._symbolic_trace import symbolic_trace
from .graph_module import GraphModule
from .node import Node, map_arg

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """`Match(anchor, nodes_map)`: the pattern's node producing its output value, and the map pattern node
    -> graph node."""
    anchor: Node
    nodes_map: dict


def _module_type(gm, target):
    try:
        return type(gm.get_submodule(target))
    except AttributeError:
        return None


class _Matcher:
    def __init__(self, gm, pattern_gm):
        self.gm, self.pgm = gm, pattern_gm

    def nodes_equal(self, pn, gn):
        if pn.op != gn.op:
            return False
        if pn.op == "call_module":
            return _module_type(self.pgm, pn.target) is _module_type(self.gm, gn.target)
        return pn.target == gn.target

    def match_arg(self, pa, ga, mapping):
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self.match_node(pa, ga, mapping)
        if isinstance(pa, (list, tuple)):
            return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and \
                all(self.match_arg(a, b, mapping) for a, b in zip(pa, ga))
        if isinstance(pa, dict):
            return isinstance(ga, dict) and pa.keys() == ga.keys() and \
                all(self.match_arg(pa[k], ga[k], mapping) for k in pa)
        return type(pa) is type(ga) and pa == ga

    def match_node(self, pn, gn, mapping):
        if pn in mapping:
            return mapping[pn] is gn
        if pn.op == "placeholder":
            mapping[pn] = gn
            return True
        if gn in mapping.values() or not self.nodes_equal(pn, gn):
            return False
        if len(pn.args) != len(gn.args) or pn.kwargs.keys() != gn.kwargs.keys():
            return False
        mapping[pn] = gn
        ok = all(self.match_arg(a, b, mapping) for a, b in zip(pn.args, gn.args)) and \
            all(self.match_arg(pn.kwargs[k], gn.kwargs[k], mapping) for k in pn.kwargs)
        if not ok:
            del mapping[pn]
        return ok


def _returning(graph):
    out = graph.output_node().args[0]
    nodes = []
    map_arg(out, nodes.append)
    return out, nodes


def replace_pattern(gm, pattern, replacement):
    """`replace_pattern(gm, pattern, replacement) -> List[Match]`: rewrite `gm` in place (recompiled)."""
    pattern_gm = pattern if isinstance(pattern, GraphModule) else symbolic_trace(pattern)
    replacement_gm = replacement if isinstance(replacement, GraphModule) else symbolic_trace(replacement)
    if any(n.op == "get_attr" for n in replacement_gm.graph.nodes):
        raise NotImplementedError("torchshim.fx: replace_pattern with attribute reads in the replacement is "
                                  "not supported")
    graph = gm.graph
    matcher = _Matcher(gm, pattern_gm)
    p_out, p_returning = _returning(pattern_gm.graph)
    p_placeholders = [n for n in pattern_gm.graph.nodes if n.op == "placeholder"]
    if not p_returning:
        return []
    anchor_p = p_returning[0]
    matches, used = [], set()
    for gn in list(graph.nodes):
        if gn.op in ("placeholder", "output") or gn in used:
            continue
        mapping = {}
        if not matcher.match_node(anchor_p, gn, mapping):
            continue
        if not all(p in mapping for p in p_returning):
            continue
        internal = [mapping[p] for p in mapping if p.op != "placeholder" and p not in p_returning]
        inside = {mapping[p] for p in mapping if p.op != "placeholder"}
        if any(u not in inside for n in internal for u in n.users):
            continue
        if inside & used:
            continue
        used |= inside
        matches.append(Match(anchor_p, dict(mapping)))
    r_out, _ = _returning(replacement_gm.graph)
    r_placeholders = [n for n in replacement_gm.graph.nodes if n.op == "placeholder"]
    for m in matches:
        val_map = {r: m.nodes_map[p] for r, p in zip(r_placeholders, p_placeholders)}
        anchor = m.nodes_map[anchor_p]
        order = {n: i for i, n in enumerate(graph.nodes)}
        inside = {m.nodes_map[p] for p in m.nodes_map if p.op != "placeholder"}
        users = [u for p in p_returning for u in m.nodes_map[p].users if u not in inside]
        # the replacement goes before the first user of the matched values (PyTorch's placement)
        where = min(users, key=order.__getitem__) if users else anchor
        with graph.inserting_before(where):
            new_out = graph.graph_copy(replacement_gm.graph, val_map)
        old = [m.nodes_map[p] for p in p_returning]
        new = []
        map_arg(new_out, new.append) if not isinstance(new_out, Node) else new.append(new_out)
        if isinstance(p_out, Node) and not isinstance(new_out, Node):
            raise RuntimeError("replace_pattern: the replacement returns a structure where the pattern "
                               "returns one value")
        for o, n in zip(old, new):
            o.replace_all_uses_with(n)
        for p in reversed(pattern_gm.graph.nodes):
            if p.op in ("placeholder", "output"):
                continue
            gn = m.nodes_map[p]
            if not gn.users:
                graph.erase_node(gn)
    gm.recompile()
    return matches
