"""Trace discovery through calls: a function is traced when traced code calls it with traced values.

Decorators and wrappers (``@jax.jit``, ``jax.vmap(f)``, ``lax.scan(body, ...)``) say which
functions JAX traces; ``scope.ModuleInfo`` finds those. This module finds the rest: while
the engine walks a module, ``CallEdges`` (an internal hook on calls inside traced code)
records each call that passes traced values to a function the linter can find, and which
arguments were traced: ``helper(x)``, ``self.method(x)``, ``mod.f(x)``, an imported name.
``follow`` then walks the module functions those calls reach, with only the traced
parameters traced (the others are the caller's Python values), running only the rules that
look inside traced code, until no new function is reached. A finding there names the path
("traced because `step` (train.py:40) calls it").

Calls that leave the module become ``OutgoingCall`` records; ``lint/traced.py`` hands them to
the module that defines the function (when it is among the linted files); ``lint/reach.py``
walks what the calls reach. A method of an equinox, Flax or nnx module class is traced by
convention (``__call__`` runs under the jit or grad of its user): findings there are
``likely``, never ``error``.
"""

from __future__ import annotations

import ast
import builtins
import os
from dataclasses import dataclass

from ..jaxmodel import families, known
from . import facts, guards
from .astutil import ast_walk
from .context import Context
from .rule import Rule
from .scope import BODY_ARGS, TRACES, StaticSpec, spec_from_call

# Module classes whose methods run under their user's jit/grad.
MODULE_BASES = frozenset({"equinox.Module", "flax.linen.Module", "flax.nnx.Module", "flax.linen.module.Module",
                          "equinox._module.Module"}) | families.HAIKU_MODULE_BASES
# Calls into these packages never reach a linted function.
_LIBRARY_HEADS = frozenset({"jax", "numpy", "np", "math", "functools", "builtins", "typing", "equinox", "flax",
                            "optax", "chex", "operator", "itertools", "collections", "os", "sys", "logging",
                            "dataclasses", "warnings", "re", "scipy", "jaxlib", "abc", "inspect", "haiku"})
_BUILTINS = frozenset(dir(builtins))  # an unshadowed builtin resolves to its bare name
MAX_ROUNDS = 8
_RULE_SETTERS = frozenset({"defjvp", "defvjp", "defjvps"})
ENABLED = True  # benchmarks/lint_speed.py turns it off for its side-by-side row
CONVENTION = "<module __call__>"


@dataclass(frozen=True)
class OutgoingCall:
    """A call from traced code to a function in another module (by qualified name).

    ``traced`` lists the traced argument positions (None: every parameter not named static,
    as when the function is handed to ``jax.vmap``); positions count from the first argument
    after ``self`` for a method.
    """

    target: str  # "pkg.mod.f", "pkg.mod.Class.method", or relative ("mod.f" with level > 0)
    level: int = 0  # relative import level of the caller's `from . import ...`
    traced: tuple[int, ...] | None = ()
    keywords: tuple[str, ...] = ()
    static_positions: tuple[int, ...] = ()
    static_names: tuple[str, ...] = ()
    method: bool = False
    virtual: bool = False  # `self.m` in class ``target``'s module (level -1): subclasses elsewhere may override m
    filter: bool = False
    wrapper: str = "<call graph>"
    via: str = ""
    # The tracing model: positions (and keywords) whose value is abstract on every way the caller is
    # reached; whether the caller is staged ("must"/"may"/""); the call sites merged into this record
    # ((line, column) in the caller's file), which account for references to the callee.
    must: tuple[int, ...] = ()
    must_keywords: tuple[str, ...] = ()
    staged: str = "must"
    sites: frozenset[tuple[int, int]] = frozenset()
    closed: bool | None = None  # False: callers beyond these (another module, a convention)
    static_args: tuple[str, ...] = ()  # parameters known to receive Python values (custom rules' nondiff ones)
    pytree_args: tuple[str, ...] = ()  # parameters that receive a Python container of traced values
    unmapped_from: int | None = None  # vmap: positions from here on are unmapped (Python values pass through)
    via_method: str = ""  # a virtual call: the method of the base class that makes it
    # a pytree's accessor (`-> int`): it concretizes its fields on purpose, so it runs on the host
    accessor: bool = False
    # positions (ints) and keywords (strs) given a value that is not the literal None: on this way, an
    # `if p is None:` branch of the callee does not run
    not_none: frozenset[int | str] = frozenset()
    # positions and keywords given a container the caller made in its traced frame (`acc = []`, then
    # `helper(x, acc)`): it lives only as long as the trace, so mutating it there leaks nothing
    fresh: frozenset[int | str] = frozenset()
    # (position or keyword, predicate) that the caller proved of the argument before the call (`assert
    # is_jax(c)`, inside `if is_jax(c):`): on this way, the callee's `if not is_jax(c):` branch does not run
    proven: frozenset[tuple[int | str, str]] = frozenset()


@dataclass(eq=False, repr=False)  # per-file state: compared by identity (docs/architecture.md)
class _Index:
    """Module-level functions and classes of one module, for resolving calls."""

    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    classes: dict[str, ast.ClassDef]
    methods: dict[str, dict[str, ast.FunctionDef | ast.AsyncFunctionDef]]
    owner: dict[ast.AST, str]  # method def -> class name
    relative: dict[str, tuple[int, str]]  # name -> (level, "mod.name") of `from .mod import name`
    # custom_jvp/custom_vjp function -> its derivative rules with their role (`f.defjvp(f_jvp)`: "jvp";
    # `f.defvjp(f_fwd, f_bwd)`: "fwd", "bwd")
    rules: dict[str, list[tuple[str, str]]]


def index(ctx: Context) -> _Index:
    """The module's function/class index (built once per module)."""
    return ctx.memo(_build_index)


def _build_index(ctx: Context) -> _Index:
    tree = ctx.tree
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    classes: dict[str, ast.ClassDef] = {}
    methods: dict[str, dict[str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    owner: dict[ast.AST, str] = {}
    relative: dict[str, tuple[int, str]] = {}
    rules: dict[str, list[tuple[str, str]]] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[stmt.name] = stmt
            for d in stmt.decorator_list:  # @f.defjvp
                if isinstance(d, ast.Attribute) and d.attr in _RULE_SETTERS and isinstance(d.value, ast.Name):
                    rules.setdefault(d.value.id, []).append((stmt.name, "jvp" if d.attr == "defjvp" else "rule"))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):  # f.defvjp(f_fwd, f_bwd)
            func = stmt.value.func
            if isinstance(func, ast.Attribute) and func.attr in _RULE_SETTERS and isinstance(func.value, ast.Name):
                roles = ("fwd", "bwd") if func.attr == "defvjp" else ("jvp",) if func.attr == "defjvp" else ()
                rules.setdefault(func.value.id, []).extend(
                    (a.id, roles[i] if i < len(roles) else "rule") for i, a in enumerate(stmt.value.args)
                    if isinstance(a, ast.Name))
        elif isinstance(stmt, ast.ClassDef):
            classes[stmt.name] = stmt
            ms = methods[stmt.name] = {}
            for s in stmt.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    ms[s.name] = s
                    owner[s] = stmt.name
        elif isinstance(stmt, ast.ImportFrom) and stmt.level:
            for a in stmt.names:
                if a.name != "*":
                    relative[a.asname or a.name] = (stmt.level, f"{stmt.module}.{a.name}" if stmt.module else a.name)
    return _Index(functions, classes, methods, owner, relative, rules)


class CallEdges(Rule):
    """Internal hook (not a catalog rule): records calls that pass traced values on."""

    code = "JS000"
    name = "call-edges"
    nodes = (ast.Call,)
    traced_only = True

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        q = ctx.resolve(call.func)
        if q is not None and (q.split(".", 1)[0] in _LIBRARY_HEADS or (q in _BUILTINS and type(call.func) is ast.Name)):
            return  # `jnp.sum(x)`, `sum(x)`: never a linted function (checked first: most calls are these)
        if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
            return  # `f(*args)`: which parameter gets what is unknown
        pos = tuple(i for i, a in enumerate(call.args) if ctx.is_traced(a) or _pytree(ctx, a))
        kws = tuple(k.arg for k in call.keywords if k.arg and (ctx.is_traced(k.value) or _pytree(ctx, k.value)))
        staged = facts.staged(ctx)
        if not pos and not kws and (not staged or type(call.func) is not ast.Name):
            # Eager code (vmap, grad) calling a helper with Python values: its jnp results are concrete. A
            # method (`self.m()`) is reached with its object, whose tracedness this call does not show.
            return
        must = tuple(i for i in pos if ctx.is_must(call.args[i]))
        must_kws = tuple(k.arg for k in call.keywords if k.arg in kws and ctx.is_must(k.value))
        via = f"`{ctx.frame.name}` ({os.path.basename(ctx.filename)}:{call.lineno}) calls it"
        not_none = frozenset([i for i, a in enumerate(call.args) if not _none(a)] +
                             [k.arg for k in call.keywords if k.arg and not _none(k.value)])
        fresh = frozenset([i for i, a in enumerate(call.args) if _made_here(ctx, a)] +
                          [k.arg for k in call.keywords if k.arg and _made_here(ctx, k.value)])
        proven = guards.proven_at(ctx, call)
        _record(ctx, call.func, OutgoingCall("", traced=pos, keywords=kws, via=via, must=must, must_keywords=must_kws,
                                             staged=staged, not_none=not_none, fresh=fresh, proven=proven,
                                             sites=frozenset({(call.lineno, call.col_offset)}),
                                             accessor=facts.in_accessor(ctx)))  # called by host-made code


class HandedToTransform(Rule):
    """Internal hook: an imported function handed to ``jax.vmap``/``lax.scan``/... anywhere in the module."""

    code = "JS000"
    name = "handed-to-transform"
    nodes = (ast.Call,)
    calls = ("jax.*", "equinox.*", "flax.*")
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        call: ast.Call = node  # type: ignore[assignment]
        if not call.args or type(call.func) not in (ast.Name, ast.Attribute):
            return
        q = ctx.resolve(call.func)
        if q is None or not q.startswith(("jax.", "equinox.", "flax.")):
            return
        t = known.lookup(q)
        if t is not None and t.makes != "abstract" and not ctx.frames[-1].traced:
            return  # jax.grad(ops.loss) in eager code: concrete values
        if q in TRACES:
            fns = call.args[:1]
            spec = spec_from_call(ctx.info, call, q, ctx.frame.node)
        elif q in BODY_ARGS:
            positions, keywords = BODY_ARGS[q]
            fns = [call.args[i] for i in positions if i < len(call.args)]
            fns += [k.value for k in call.keywords if k.arg in keywords]
            spec = StaticSpec(wrapper=q)
        else:
            return
        via = f"{os.path.basename(ctx.filename)}:{call.lineno} hands it to `{q}`"
        for fn in fns:
            for f in fn.elts if isinstance(fn, (ast.List, ast.Tuple)) else [fn]:
                if type(f) is ast.Attribute or (type(f) is ast.Name and f.id not in index(ctx).functions):
                    _record(ctx, f, OutgoingCall("", traced=spec.traced_argnums if spec.traced_argnums else None,
                                                 static_positions=tuple(spec.argnums),
                                                 static_names=tuple(spec.argnames), filter=spec.filter,
                                                 wrapper=q, via=via, staged=_handed_staged(ctx, q), closed=False,
                                                 unmapped_from=spec.unmapped_from, must=() if spec.must_names == frozenset()
                                                 else ()))


def _pytree(ctx: Context, node: ast.AST) -> bool:
    """A name holding a container of traced leaves (`state`, `carry`): passing it passes tracers on."""
    if type(node) is not ast.Name:
        return False
    f = ctx._local_frame(node.id)  # type: ignore[attr-defined]
    return f is not None and node.id in f.pytrees  # type: ignore[attr-defined]


def _made_here(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` a container made in this traced frame (``[]``, or a local bound to one on every path here)?"""
    from .rules._reaching import reaching_values  # rules import this module's package: imported when used
    from .rules.js403_container_mutation_in_traced import made_fresh

    if made_fresh(ctx, node):
        return True
    f = ctx.frame
    if type(node) is ast.Name and facts.rebuilt_argument(f, node.id):  # type: ignore[attr-defined]
        return True  # the jitted function's own dict/list argument: jit rebuilt it from the leaves in this trace
    if type(node) is not ast.Name or f.node is None or node.id not in f.bound or node.id in f.params:  # type: ignore[attr-defined]
        return False
    reaching = reaching_values(f.node, ctx.parents, node, node.id)  # type: ignore[attr-defined]
    return reaching is not None and all(made_fresh(ctx, v) for v in reaching)


def _none(node: ast.AST) -> bool:
    return type(node) is ast.Constant and node.value is None  # type: ignore[attr-defined]


def _handed_staged(ctx: Context, wrapper: str) -> str:
    """Is a function handed to ``wrapper`` here traced into a cached jaxpr (jit, a scan body, or any
    transform applied inside staged code)?"""
    t = known.lookup(wrapper)
    if t is not None and t.trace_only:
        return ""
    if t is not None and t.python_runs == "each_call":
        return facts.staged(ctx) if ctx.frames[-1].traced else ""
    return "must"


def _record(ctx: Context, func: ast.AST, edge: OutgoingCall) -> None:
    """Resolve ``func`` to a def of this module (queued for ``follow``) or an outgoing call."""
    if type(func) is ast.Call and func.args and (ctx.resolve(func.func) or "").endswith("partial"):  # type: ignore[attr-defined]
        # `partial(helper, a, k=b)(x)`: the bound arguments come first; traced ones stay traced.
        bound = func.args[1:]  # type: ignore[attr-defined]
        if edge.traced is not None and not any(type(a) is ast.Starred for a in bound):
            pos = tuple(i for i, a in enumerate(bound) if ctx.is_traced(a)) + tuple(i + len(bound)
                                                                                  for i in edge.traced)
            must = tuple(i for i, a in enumerate(bound) if ctx.is_must(a)) + tuple(i + len(bound) for i in edge.must)
            kws = edge.keywords + tuple(k.arg for k in func.keywords if k.arg and ctx.is_traced(k.value))  # type: ignore[attr-defined]
            _record(ctx, func.args[0], _with(edge, traced=pos, keywords=kws, must=must))  # type: ignore[attr-defined]
        return
    idx = index(ctx)
    local: list = ctx.cg_local
    out: list = ctx.cg_outgoing
    if type(func) is ast.Name:
        name = func.id  # type: ignore[attr-defined]
        if ctx._local_frame(name) is not None:
            return  # a local function: already walked as part of its traced parent
        if name in idx.functions:
            local.append((idx.functions[name], edge, False))
        elif name in idx.relative:
            level, target = idx.relative[name]
            out.append(_with(edge, target=target, level=level))
        elif name in ctx.info.aliases and ctx.info.aliases[name].split(".")[0] not in _LIBRARY_HEADS:
            out.append(_with(edge, target=ctx.info.aliases[name]))
        return
    if type(func) is not ast.Attribute:
        return
    base = func.value  # type: ignore[attr-defined]
    attr = func.attr  # type: ignore[attr-defined]
    if type(base) is ast.Name and base.id in ("self", "cls"):  # type: ignore[attr-defined]
        cls = _enclosing_class(ctx)
        if cls is not None:
            _method(ctx, cls, attr, _with(edge, method=True), set())
            # A subclass in another linted module may override `attr`: its version is what runs (unless it
            # overrides the calling method too: then this caller never runs on its instances).
            caller = _enclosing_method(ctx)
            out.append(_with(edge, target=f"{cls}.{attr}", level=-1, method=True, virtual=True,
                             via_method=caller))
        return
    if type(base) is ast.Name and ctx._local_frame(base.id) is not None:  # type: ignore[attr-defined]
        cls = _annotated_class(ctx, base.id)  # type: ignore[attr-defined]
        if cls is not None and cls in idx.classes:  # `def step(model: MLP, x): model.loss(x)`
            _method(ctx, cls, attr, _with(edge, method=True), set())
        elif cls is not None and cls.split(".")[0] not in _LIBRARY_HEADS and "." in cls:
            out.append(_with(edge, target=f"{cls}.{attr}", method=True))
        return
    if type(base) is ast.Name and base.id in _module_instances(ctx):  # type: ignore[attr-defined]
        # `tracker = Tracker()` at module level, `tracker.record(y)` in a jitted function: the instance outlives
        # every trace, so what its method stores on it is kept
        _method(ctx, _module_instances(ctx)[base.id], attr, _with(edge, method=True), set())  # type: ignore[attr-defined]
        return
    if type(base) is ast.Name:
        head = base.id  # type: ignore[attr-defined]
        if head in idx.relative:
            level, target = idx.relative[head]
            out.append(_with(edge, target=f"{target}.{attr}", level=level))
            return
        q = ctx.info.aliases.get(head)
        if q is not None and q.split(".")[0] not in _LIBRARY_HEADS:
            out.append(_with(edge, target=f"{q}.{attr}"))


def _module_instances(ctx: Context) -> dict[str, str]:
    """Module-level names bound once, to an instance of a class of this module (``tracker = Tracker()``)."""
    return ctx.memo(_find_module_instances)


def _find_module_instances(ctx: Context) -> dict[str, str]:
    classes = index(ctx).classes
    counts: dict[str, int] = {}
    made: dict[str, str] = {}
    for st in ctx.tree.body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(
            st, (ast.AnnAssign, ast.AugAssign)) else []
        for t in targets:
            for n in ast_walk(t):
                if isinstance(n, ast.Name):
                    counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name) \
                and st.value.func.id in classes:
            made[st.targets[0].id] = st.value.func.id
    return {k: v for k, v in made.items() if counts.get(k) == 1}


def _annotated_class(ctx: Context, name: str) -> str | None:
    """The class a parameter ``name`` is annotated with (``model: MLP``): a local class name or a qualified one."""
    f = ctx._local_frame(name)
    args = getattr(f.node, "args", None) if f is not None else None
    if args is None:
        return None
    for p in args.posonlyargs + args.args + args.kwonlyargs:
        if p.arg == name and isinstance(p.annotation, (ast.Name, ast.Attribute)):
            if isinstance(p.annotation, ast.Name) and p.annotation.id in index(ctx).classes:
                return p.annotation.id
            return ctx.info.resolve(p.annotation)
    return None


def _with(edge: OutgoingCall, **changes: object) -> OutgoingCall:
    return OutgoingCall(**{**edge.__dict__, **changes})  # type: ignore[arg-type]


def _enclosing_method(ctx: Context) -> str:
    """The name of the method (of a module-level class) the code being walked is in."""
    idx = index(ctx)
    for f in ctx.frames[1:]:
        if f.node in idx.owner:
            return getattr(f.node, "name", "")
    return ""


def _enclosing_class(ctx: Context) -> str | None:
    idx = index(ctx)
    for f in ctx.frames[1:]:
        owner = idx.owner.get(f.node)
        if owner is not None:
            return owner
    return None


def _method(ctx: Context, cls: str, name: str, edge: OutgoingCall, seen: set[str]) -> None:
    """Queue ``cls.name`` (looked up through the bases: local classes here, imported ones as outgoing calls)."""
    idx = index(ctx)
    if cls in seen:
        return
    seen.add(cls)
    m = idx.methods.get(cls, {}).get(name)
    if m is not None:
        ctx.cg_local.append((m, edge, True))
        return
    for b in idx.classes[cls].bases if cls in idx.classes else ():
        if isinstance(b, ast.Subscript):
            b = b.value  # a generic base (`Environment[EnvState, EnvParams]`) is its class
        if isinstance(b, ast.Name) and b.id in idx.classes:
            _method(ctx, b.id, name, edge, seen)
        elif isinstance(b, ast.Name) and b.id in idx.relative:
            level, target = idx.relative[b.id]
            ctx.cg_outgoing.append(_with(edge, target=f"{target}.{name}", level=level))
        else:
            q = ctx.info.resolve(b)
            if q and q.split(".")[0] not in _LIBRARY_HEADS:
                ctx.cg_outgoing.append(_with(edge, target=f"{q}.{name}"))
