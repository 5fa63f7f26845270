"""What a pytree's ``tree_unflatten`` rebuilds from what its ``tree_flatten`` took apart.

JAX takes every pytree argument of a transformation apart with the class's flatten function and builds
it again, inside the trace (with tracers for the children) and after it (outputs), with the unflatten
function: ``jax.jit(lambda b: b)(b)`` returns ``unflatten(aux, flatten(b)[0])``. A correct pair is a
round trip: each attribute comes back where it was. The model reads, for a class registered with
``@jax.tree_util.register_pytree_node_class`` (or ``register_pytree_node(Cls, flatten, unflatten)`` with
functions of the module), which attribute each child and each aux item comes from (``self.lo``), which
slot of the rebuilt object each one reaches (a parameter of ``__init__`` and the attribute that
parameter sets, ``self.lo = lo``; a field of a dataclass; ``obj.lo = ...`` on an ``object.__new__``
instance), and how many children an unpacking expects. Only what the source says plainly is used: a
child that is not ``self.x``, an ``__init__`` that computes rather than stores, ``**kwargs``: unknown,
and no claim is made about it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_REGISTER_CLASS = "jax.tree_util.register_pytree_node_class"
_REGISTER = frozenset({"jax.tree_util.register_pytree_node"})


@dataclass(frozen=True)
class Slot:
    """One value the unflatten passes on: where it came from (``kind`` ``"child"``/``"aux"``, its position)."""

    kind: str
    index: int


@dataclass(frozen=True)
class Mismatch:
    """A flaw of the round trip: ``what`` is ``"moved"`` (a value lands in another attribute), ``"count"``
    (an unpacking of a different length: ValueError on every unflatten) or ``"dropped"`` (a child never
    passed on)."""

    what: str
    node: ast.AST
    source: str  # the attribute the value came from (``lo``), or the count the flatten returns
    target: str  # the attribute it reaches, or the count the unpacking expects
    detail: str


@dataclass
class _Pair:
    cls: ast.ClassDef
    flatten: ast.FunctionDef
    unflatten: ast.FunctionDef
    self_name: str  # flatten's first parameter (``self``, or the instance a module function takes)
    aux_param: str
    children_param: str


def pair_at(ctx, node: ast.AST) -> _Pair | None:  # ctx: lint.context.Context
    """The flatten/unflatten pair registered at ``node``: a module-level class decorated with
    ``register_pytree_node_class``, or a module-level ``register_pytree_node(Cls, flatten, unflatten)``
    statement naming a class and two functions of the module."""
    if isinstance(node, ast.ClassDef):
        if node not in ctx.tree.body or not any(
                ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) == _REGISTER_CLASS
                for d in node.decorator_list):
            return None
        methods = {s.name: s for s in node.body if isinstance(s, _DEFS)}
        return _pair(node, methods.get("tree_flatten"), methods.get("tree_unflatten"), method=True)
    call = node.value if isinstance(node, ast.Expr) else None
    if not (isinstance(call, ast.Call) and len(call.args) == 3 and node in ctx.tree.body
            and ctx.info.resolve(call.func) in _REGISTER):
        return None
    c, f, u = call.args
    if not (isinstance(c, ast.Name) and isinstance(f, ast.Name) and isinstance(u, ast.Name)):
        return None
    defs = {s.name: s for s in ctx.tree.body if isinstance(s, (*_DEFS, ast.ClassDef))}
    cls = defs.get(c.id)
    if not isinstance(cls, ast.ClassDef):
        return None
    return _pair(cls, defs.get(f.id), defs.get(u.id), method=False)


def _pair(cls, flatten, unflatten, *, method: bool) -> _Pair | None:
    if not isinstance(flatten, _DEFS) or not isinstance(unflatten, _DEFS):
        return None
    fp = [a.arg for a in flatten.args.posonlyargs + flatten.args.args]
    up = [a.arg for a in unflatten.args.posonlyargs + unflatten.args.args]
    if method:
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in unflatten.decorator_list)
        up = up if static else up[1:]  # a classmethod's `cls`
    if len(fp) != 1 or len(up) != 2:
        return None
    return _Pair(cls, flatten, unflatten, fp[0], up[0], up[1])


def _returned(fn: ast.FunctionDef) -> list[ast.Return]:
    out = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Return):
            out.append(n)
        elif not isinstance(n, (*_DEFS, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))
    return out


def _single_bindings(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names ``fn`` binds exactly once, by a plain ``name = value``."""
    seen: dict[str, list[ast.expr]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            seen.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            seen.setdefault(n.target.id, []).extend([n.target, n.target])
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _attrs(expr: ast.expr, self_name: str) -> list[str | None] | None:
    """The attribute each element of a literal tuple/list comes from (None: not a plain ``self.x``)."""
    if not isinstance(expr, (ast.Tuple, ast.List)):
        return None
    out: list[str | None] = []
    for e in expr.elts:
        if isinstance(e, ast.Starred):
            return None
        ok = isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == self_name
        out.append(e.attr if ok else None)  # type: ignore[union-attr]
    return out


def flattened(pair: _Pair) -> tuple[list[str | None], list[str | None] | str | None] | None:
    """(the attribute of each child, the attribute of each aux item, or of the aux value when it is one
    ``self.x``) from the flatten's only return, or None when it is not a literal pair."""
    rets = _returned(pair.flatten)
    if len(rets) != 1 or not isinstance(rets[0].value, ast.Tuple) or len(rets[0].value.elts) != 2:
        return None
    bound = _single_bindings(pair.flatten)
    children, aux = rets[0].value.elts
    if isinstance(children, ast.Name) and children.id in bound:
        children = bound[children.id]
    if isinstance(aux, ast.Name) and aux.id in bound:
        aux = bound[aux.id]
    kids = _attrs(children, pair.self_name)
    if kids is None:
        return None
    if isinstance(aux, ast.Attribute) and isinstance(aux.value, ast.Name) and aux.value.id == pair.self_name:
        return kids, aux.attr
    return kids, _attrs(aux, pair.self_name)


def _plain_dataclass(cls: ast.ClassDef) -> bool:
    """Whether the generated ``__init__`` takes exactly the class body's annotated fields, in order: no base
    class but ``object`` (inherited fields come first), no decorator keyword (``init=False``, ``kw_only=True``),
    no field with a call as its value (``field(init=False)``, ``field(kw_only=True)``), no ``InitVar`` or
    ``KW_ONLY``. Anything else is not modelled, so no claim is made."""
    if any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases) or cls.keywords:
        return False
    if any(isinstance(d, ast.Call) and (d.keywords or d.args) for d in cls.decorator_list):
        return False
    for s in cls.body:
        if isinstance(s, ast.AnnAssign):
            if isinstance(s.value, ast.Call):
                return False
            names = {n.id for n in ast.walk(s.annotation) if isinstance(n, ast.Name)} | {
                n.attr for n in ast.walk(s.annotation) if isinstance(n, ast.Attribute)}
            if names & {"InitVar", "KW_ONLY"} or "InitVar" in ast.dump(s.annotation):
                return False
    return True


def init_slots(cls: ast.ClassDef, ctx) -> tuple[list[str | None], dict[str, str | None], bool] | None:
    """The rebuilt object's slots: for each positional parameter of ``__init__`` (after ``self``) the attribute
    it sets (None: not stored plainly), the same by keyword, and whether extra positionals are taken
    (``*args``). A dataclass without ``__init__``: its fields in order. None when unknown."""
    init = next((s for s in cls.body if isinstance(s, _DEFS) and s.name == "__init__"), None)
    if init is None:
        if not any("dataclass" in (ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) or "")
                   for d in cls.decorator_list):
            return None
        if not _plain_dataclass(cls):
            return None
        fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                  and "ClassVar" not in ast.dump(s.annotation)]
        return list(fields), {f: f for f in fields}, False
    if init.args.kwarg is not None:
        return None
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    stores: dict[str, list[str]] = {}
    for n in ast.walk(init):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                pairs_ = zip(t.elts, n.value.elts) if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) \
                    and len(t.elts) == len(n.value.elts) else [(t, n.value)]
                for tt, vv in pairs_:
                    if isinstance(tt, ast.Attribute) and isinstance(tt.value, ast.Name) and tt.value.id == "self" \
                            and isinstance(vv, ast.Name):
                        stores.setdefault(vv.id, []).append(tt.attr)
    sets = {p: (stores[p][0] if len(stores.get(p, ())) == 1 else None) for p in params}
    kw = {**sets, **{a.arg: sets.get(a.arg) for a in init.args.kwonlyargs}}
    return [sets[p] for p in params], kw, init.args.vararg is not None


def mismatches(ctx, pair: _Pair) -> list[Mismatch]:
    """Where the unflatten does not rebuild what the flatten took apart."""
    got = flattened(pair)
    if got is None:
        return []
    kids, aux = got
    out: list[Mismatch] = []
    unpacked: dict[str, Slot] = {}
    used: set[int] = set()
    opaque = False  # `children` used whole somewhere else: no claim that a child is dropped
    for n in ast.walk(pair.unflatten):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], (ast.Tuple, ast.List)) \
                and isinstance(n.value, ast.Name) and n.value.id in (pair.children_param, pair.aux_param):
            targets = n.targets[0].elts
            kind = "child" if n.value.id == pair.children_param else "aux"
            want = len(kids) if kind == "child" else (len(aux) if isinstance(aux, list) else None)
            if any(isinstance(t, ast.Starred) for t in targets):
                opaque = opaque or kind == "child"
                continue
            if want is not None and want != len(targets):
                source = "children" if kind == "child" else "aux items"
                out.append(Mismatch("count", n, str(want), str(len(targets)),
                                    f"`{pair.flatten.name}` returns {want} {source}, the unpacking takes "
                                    f"{len(targets)}"))
                continue
            for i, t in enumerate(targets):
                if isinstance(t, ast.Name):
                    unpacked[t.id] = Slot(kind, i)
    rets = _returned(pair.unflatten)
    call = rets[0].value if len(rets) == 1 else None
    built = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in (
        "cls", pair.cls.name)
    slots = init_slots(pair.cls, ctx) if built else None

    def source(e: ast.expr) -> list[Slot] | None:
        if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name):
            if e.value.id == pair.children_param:
                return [Slot("child", i) for i in range(len(kids))]
            if e.value.id == pair.aux_param and isinstance(aux, list):
                return [Slot("aux", i) for i in range(len(aux))]
            return None
        if isinstance(e, ast.Name):
            if e.id in unpacked:
                return [unpacked[e.id]]
            if e.id == pair.aux_param and isinstance(aux, str):
                return [Slot("aux", -1)]
            return None
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and isinstance(e.slice, ast.Constant) \
                and isinstance(e.slice.value, int) and e.slice.value >= 0:
            if e.value.id == pair.children_param:
                return [Slot("child", e.slice.value)]
            if e.value.id == pair.aux_param and isinstance(aux, list):
                return [Slot("aux", e.slice.value)]
        return None

    def attr_of(s: Slot) -> str | None:
        if s.kind == "child":
            return kids[s.index] if s.index < len(kids) else None
        if isinstance(aux, str):
            return aux
        return aux[s.index] if isinstance(aux, list) and s.index < len(aux) else None

    parents = {c: n for n in ast.walk(pair.unflatten) for c in ast.iter_child_nodes(n)}
    for n in ast.walk(pair.unflatten):  # every read of a child
        if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
            continue
        up = parents.get(n)
        if n.id in unpacked and unpacked[n.id].kind == "child":
            used.add(unpacked[n.id].index)
        elif n.id != pair.children_param:
            continue
        elif isinstance(up, ast.Starred):
            used.update(range(len(kids)))
        elif isinstance(up, ast.Subscript) and up.value is n and source(up):
            used.add(source(up)[0].index)  # type: ignore[index]
        elif not (isinstance(up, ast.Assign) and up.value is n and isinstance(up.targets[0], (ast.Tuple, ast.List))):
            opaque = True  # `children` handed on whole (a loop, a helper): no claim about what is dropped
    if slots is not None and isinstance(call, ast.Call):
        positional, by_name, _ = slots
        flow: list[tuple[ast.AST, Slot, str | None]] = []
        pos = 0
        for a in call.args:
            got_src = source(a)
            if got_src is None:
                if isinstance(a, ast.Starred):
                    flow = []
                    break  # an unknown number of positionals: the rest cannot be placed
                pos += 1
                continue
            for s in got_src:
                flow.append((a, s, positional[pos] if pos < len(positional) else None))
                pos += 1
        for k in call.keywords:
            if k.arg is None:
                continue
            got_src = source(k.value)
            if got_src and len(got_src) == 1:
                flow.append((k, got_src[0], by_name.get(k.arg)))
        # A value "moves" only between two plain instance attributes: what the flatten reads must itself be an
        # attribute ``__init__`` stores from a parameter, not a property or method of the class (flax's
        # ``state.initializing`` is a property returning ``self._initializing``: the same value, not a move).
        stored = {a for a in (*positional, *by_name.values()) if a}
        members = {st.name for st in pair.cls.body if isinstance(st, _DEFS)}
        for node, s, target in flow:
            origin = attr_of(s)
            if origin and target and origin != target and origin in stored and origin not in members:
                where = "child" if s.kind == "child" else "aux item"
                pos_text = f" {s.index}" if s.index >= 0 else ""
                out.append(Mismatch("moved", node, origin, target,
                                    f"the {where}{pos_text} that `{pair.flatten.name}` takes from `self.{origin}` "
                                    f"becomes `self.{target}` of the rebuilt `{pair.cls.name}`"))
    if not opaque and not any(m.what == "count" for m in out) and (unpacked or used):
        for i, attr in enumerate(kids):
            if i not in used and attr:
                out.append(Mismatch("dropped", pair.unflatten, attr, "",
                                    f"child {i} (`self.{attr}`) that `{pair.flatten.name}` returns is never passed "
                                    f"on by `{pair.unflatten.name}`"))
    return out
