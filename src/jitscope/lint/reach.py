"""Following the call graph: walking, as traced, the functions that recorded calls reach.

``lint/callgraph.py`` records the calls; ``follow`` walks the module functions they reach
(and the ``__call__`` of equinox/Flax module classes, and the derivative rules of traced
``custom_jvp``/``custom_vjp`` functions) with the traced parameters the calls imply, round by
round; ``resolve_incoming`` turns calls from other files into functions of this module, and
``class_bases`` summarises the module's classes for overrides across files (``lint/traced.py``).
"""

from __future__ import annotations

import ast

from ..jaxmodel import families, known
from . import pytrees, unknown_callers
from .callgraph import (
    _LIBRARY_HEADS,
    CONVENTION,
    MAX_ROUNDS,
    MODULE_BASES,
    CallEdges,
    OutgoingCall,
    _method,
    _with,
    index,
)
from .context import Context, Frame
from .facts import MUST, closed
from .operator_calls import OperatorEdges
from .rule import Rule
from .scope import StaticSpec, decorator_spec, literal_ints, traces_abstractly
from .unknown_callers import UNKNOWN
from .value_calls import ValueCallEdges
from .value_calls import resolve as resolve_value_calls


def spec_for(fn: ast.FunctionDef | ast.AsyncFunctionDef, edge: OutgoingCall, method: bool) -> StaticSpec:
    """The StaticSpec a call implies for ``fn``: only the parameters that received traced values are traced,
    and those that received an abstract value on every recorded call are must facts."""
    a = fn.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if method and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    every = set(positional) | {p.arg for p in a.kwonlyargs}
    must: frozenset[str] | None = None
    if edge.traced is None:
        static = {positional[i] for i in edge.static_positions if -len(positional) <= i < len(positional)}
        static |= set(edge.static_names)
        if edge.unmapped_from is not None:
            static |= set(positional[edge.unmapped_from:])
    else:
        traced = {positional[i] for i in edge.traced if i < len(positional)} | (set(edge.keywords) & every)
        static = every - traced
        must = frozenset({positional[i] for i in edge.must if i < len(positional)} | (set(edge.must_keywords) & every))
    static |= set(edge.static_args)
    not_none = frozenset(positional[i] if isinstance(i, int) and i < len(positional) else i
                         for i in edge.not_none if not isinstance(i, int) or i < len(positional)) & every
    fresh = frozenset(positional[i] if isinstance(i, int) and i < len(positional) else i
                      for i in edge.fresh if not isinstance(i, int) or i < len(positional)) & every
    proven = frozenset((positional[i] if isinstance(i, int) else i, pred) for i, pred in edge.proven
                       if (not isinstance(i, int) or i < len(positional)) and (isinstance(i, int) or i in every))
    python_only = edge.traced == () and not edge.keywords and not edge.pytree_args and not method  # `self` may be traced
    return StaticSpec(fresh=fresh, argnames=tuple(sorted(static)), wrapper=edge.wrapper, filter=edge.filter, via=edge.via,
                      python_only=python_only,
                      assumed=edge.wrapper == CONVENTION, staged=edge.staged, closed=edge.closed, must_names=must,
                      refs_seen=len(edge.sites), pytrees=edge.pytree_args, not_none=not_none, accessor=edge.accessor,
                      proven=proven)


def already_traced(ctx: Context, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Did the main walk already treat ``fn`` as traced whatever calls it (a decorator, a wrapper call)?
    A ``@jax.grad`` function is not: it sees abstract values only when traced code calls it."""
    if any((spec := decorator_spec(ctx.info, d)) is not None and traces_abstractly(spec) for d in fn.decorator_list):
        return True
    return ctx.info.traced_spec(0, fn.name, fn) is not None


def module_calls(ctx: Context) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]]:
    """``__call__`` of equinox/Flax/nnx module classes: traced by convention, every input possibly an array."""
    out = []
    idx = index(ctx)
    for cname, cls in idx.classes.items():
        called = None
        bases = [ctx.info.resolve(b) or "" for b in cls.bases]
        if any(b in MODULE_BASES for b in bases):
            m = idx.methods[cname].get("__call__")
            if m is not None:
                called = m
                family = "a Haiku module (run by a transformed function's `apply`)" if any(
                    b in families.HAIKU_MODULE_BASES for b in bases) else "an equinox/Flax module"
                via = f"`{cname}` is {family}: its `__call__` runs under its caller's jit or grad"
                out.append((m, OutgoingCall("", traced=None, filter=True, wrapper=CONVENTION, via=via, staged="may",
                                            closed=False), True))
            for name, line in _applied_methods(ctx).get(cname, ()):
                m = idx.methods[cname].get(name)
                if m is not None and m is not called:
                    via = f"`{cname}.{name}` runs as the module through `apply(..., method=...)` (line {line})"
                    out.append((m, OutgoingCall("", traced=None, filter=True, wrapper=CONVENTION, via=via,
                                                staged="may", closed=False), True))
        if pytrees.is_pytree(ctx, cls):
            # A pytree's methods run on traced values when an instance passes through jit: its array
            # fields (and array-annotated parameters) are traced there, on some way (a may fact).
            via = f"`{cname}` is a pytree: its methods run on traced fields when an instance passes through jit"
            for m in idx.methods[cname].values():
                if m is called or not pytrees.method_may_run_traced(ctx, cls, m):
                    continue
                params = [p for p in m.args.posonlyargs + m.args.args][1:]
                built = m.name in ("__init__", "__post_init__")
                via_m = via if not built else \
                    f"JAX rebuilds `{cname}` while tracing: its `__init__` runs in every trace an instance enters"
                traced = tuple(i for i, p in enumerate(params) if pytrees.array_annotation(p.annotation))
                out.append((m, OutgoingCall("", traced=traced, wrapper=CONVENTION, via=via_m, staged="may",
                                            closed=False, accessor=pytrees.python_scalar(m)), True))
    return out


def _applied_methods(ctx: Context) -> dict[str, list[tuple[str, int]]]:
    """Methods a Flax module runs as itself: ``model.apply(params, x, method=AE.encode)``: class name -> [(method,
    line)]. Like ``__call__``, they run under the jit of ``apply`` (a string ``method="encode"`` is not read)."""
    return ctx.memo(_find_applied_methods)


def _find_applied_methods(ctx: Context) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    if "method=" not in ctx.text:
        return out
    for n in ast.walk(ctx.tree):
        if type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in ("apply", "init"):
            for k in n.keywords:
                v = k.value
                if k.arg == "method" and type(v) is ast.Attribute and type(v.value) is ast.Name:
                    out.setdefault(v.value.id, []).append((v.attr, n.lineno))
    return out


def merge(prev: OutgoingCall, edge: OutgoingCall) -> OutgoingCall:
    """One record for two ways a function is reached: traced where either traces a parameter, a must fact
    where both hold it, staged "must" only if both are, and both call sites accounted for."""
    if prev.traced is None or edge.traced is None:
        traced = None
        must: tuple[int, ...] = ()
        keywords: tuple[str, ...] = ()
        base = prev if prev.traced is None else edge
    else:
        traced = tuple(sorted(set(prev.traced) | set(edge.traced)))
        must = tuple(sorted(set(prev.must) & set(edge.must)))
        keywords = tuple(sorted(set(prev.keywords) | set(edge.keywords)))
        base = prev
    staged = "must" if prev.staged == edge.staged == "must" else ("may" if prev.staged or edge.staged else "")
    closed = False if (prev.closed is False or edge.closed is False) else prev.closed
    # A way that is seen (a jit, a traced caller) outranks a convention: the merged record is not assumed.
    seen = edge if prev.wrapper == CONVENTION and edge.wrapper != CONVENTION else prev
    return _with(base, traced=traced, keywords=keywords, must=must, not_none=prev.not_none & edge.not_none,
                 fresh=prev.fresh & edge.fresh, proven=prev.proven & edge.proven,
                 must_keywords=tuple(sorted(set(prev.must_keywords) & set(edge.must_keywords))), staged=staged,
                 sites=prev.sites | edge.sites, closed=closed, via=seen.via, wrapper=seen.wrapper,
                 accessor=prev.accessor and edge.accessor)  # host-made only if every way is


def _unit(fn: ast.AST) -> tuple[int, int, str]:
    """A function's key for the findings of its walk (its place in the file, never an object id)."""
    return (getattr(fn, "lineno", 0), getattr(fn, "col_offset", 0), getattr(fn, "name", ""))


def follow(ctx: Context, visitor_cls: type, rules: list[Rule],
           start: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]] | None = None,
           conventions: bool = True) -> None:
    """Walk the module functions reached by recorded calls, as traced, until nothing changes.

    Every way a function is reached is merged into one record before it is walked (``merge``); a
    function reached again later with a record that says more is walked again and its findings
    replace the earlier ones, so each finding is reported once whatever the number of callers.
    Only ``traced_only`` rules run (the others already saw these functions in the main walk).
    ``start`` adds calls from other modules (``lint/traced.py``); ``conventions`` adds the
    ``__call__`` of module classes (once per module: the first pass).
    """
    resolve_value_calls(ctx)
    pending = list(start or []) + (module_calls(ctx) if conventions else []) + ctx.take_cg_local()
    idx = index(ctx)
    if idx.rules and conventions:
        pending += _derivative_rules(ctx, [idx.functions[n] for n in idx.rules
                                           if n in idx.functions and already_traced(ctx, idx.functions[n])])
    if not pending and not (conventions and unknown_callers.ENABLED):
        return
    hooks = [r for r in rules if r.traced_only] + [CallEdges(), OperatorEdges(), ValueCallEdges()]
    visitor = visitor_cls(ctx, hooks)
    state: dict[tuple[int, int, str], tuple[ast.AST, OutgoingCall, bool]] = ctx.table((follow, "state"))
    found: dict[tuple[int, int, str], list] = ctx.table((follow, "findings"))
    rounds = 0
    while pending and rounds < MAX_ROUNDS:
        rounds += 1
        changed: dict[tuple[int, int, str], None] = {}
        for fn, edge, method in pending:
            if already_traced(ctx, fn):
                continue
            key = _unit(fn)
            prev = state.get(key)
            new = edge if prev is None else merge(prev[1], edge)
            if prev is None or new != prev[1]:
                state[key] = (fn, new, method)
                changed[key] = None
        pending = []
        for key in changed:
            fn, edge, method = state[key]
            found[key] = _walk(ctx, visitor, fn, spec_for(fn, edge, method))  # type: ignore[arg-type]
        resolve_value_calls(ctx)
        pending = ctx.take_cg_local()
        pending += _derivative_rules(ctx, [state[k][0] for k in changed])
    if conventions and unknown_callers.ENABLED:
        # Public functions nothing linted traces: walked once as a user's jit would trace them, every parameter
        # a Python value, recording no calls (lint/unknown_callers.py); their findings are info.
        reached = {v[0] for v in state.values()}
        # python_only: claims resting on staging alone are not made, so those rules need not run
        walker = visitor_cls(ctx, [r for r in rules if r.traced_only and r.requires != "staged"])
        seen = {_place(f) for f in ctx.findings} | {_place(f) for fs in found.values() for f in fs}
        for fn, spec in unknown_callers.candidates(ctx, reached):
            if already_traced(ctx, fn):
                continue
            # A finding a seen way already made (a jitted function nested in this one) keeps that way's verdict.
            found[(*_unit(fn), UNKNOWN)] = [f for f in _walk(ctx, walker, fn, spec) if _place(f) not in seen]
        ctx.take_cg_local()
    _drop_inlined_costs(ctx, [(fn, spec_for(fn, edge, method)) for fn, edge, method in state.values()])  # type: ignore[arg-type]
    for key in sorted(found):
        ctx.findings.extend(found.pop(key))


# Rules whose claim is a compile paid each time code runs eagerly (a jit of a fresh function, a fresh static
# argument, a static value per iteration, a jit in a loop): inside a trace, the inner jit is inlined into the
# outer program and nothing is compiled on its own. The main walk drops them where a def or wrapper shows the
# trace (`ctx.under_trace`); a function the call graph finds traced on every way it is reached drops them here.
INLINED_COSTS = frozenset({"JS203", "JS204", "JS208", "JS605"})


def _drop_inlined_costs(ctx: Context, reached: list[tuple[ast.AST, StaticSpec]]) -> None:
    spans = []
    for fn, spec in reached:
        if spec.staged != MUST or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if closed(ctx, Frame(fn, fn.name, traced=True, spec=spec)):  # every way it runs is inside a trace
            spans.append((fn.lineno, fn.end_lineno or fn.lineno))
    if spans:
        # JS208 also reports at the `static_argnames` declaration, naming the loop (`details["line"]`): it goes too
        ctx.findings[:] = [f for f in ctx.findings if f.code not in INLINED_COSTS or not any(
            a <= f.location.line <= b or (f.code == "JS208" and a <= int(f.details.get("line", 0) or 0) <= b)
            for a, b in spans)]


def _place(f) -> tuple:
    loc = f.location
    return (f.code, loc.line, loc.column) if loc is not None else (f.code, f.message)


def _walk(ctx: Context, visitor, fn: ast.AST, spec: StaticSpec) -> list:
    """Walk ``fn`` alone as traced with ``spec``; return its findings (taken out of ``ctx.findings``)."""
    visitor.forced[fn] = spec
    frames, parents, before = ctx.frames, ctx.parents, len(ctx.findings)
    ctx.frames, ctx.parents = [frames[0]], []
    try:
        visitor.visit(fn)
    finally:
        ctx.frames, ctx.parents = frames, parents
        out = ctx.findings[before:]
        del ctx.findings[before:]
    return out


def _derivative_rules(ctx: Context, traced: list) -> list[tuple[ast.AST, OutgoingCall, bool]]:
    """The custom_jvp/custom_vjp rules (``f.defjvp(f_jvp)``) of traced functions, reached where ``f`` is
    differentiated (not on every way ``f`` runs). A ``nondiff_argnums`` argument reaches them as ``f``'s
    caller passed it (usually a Python value: a function, a flag); a jvp rule's ``primals``/``tangents``
    and a bwd rule's residuals are tuples of traced values, not arrays."""
    idx = index(ctx)
    out: list[tuple[ast.AST, OutgoingCall, bool]] = []
    for fn in traced:
        nondiff = _nondiff_count(ctx, fn)
        for rule, role in idx.rules.get(getattr(fn, "name", ""), ()):
            target = idx.functions.get(rule)
            if target is None:
                continue
            params = [p.arg for p in target.args.posonlyargs + target.args.args]
            static = tuple(params[:nondiff]) if role != "fwd" else tuple(params[i] for i in _nondiff_positions(ctx, fn)
                                                                        if i < len(params))
            rest = [p for p in params if p not in static]
            pytrees = tuple(rest[:2]) if role == "jvp" else tuple(rest[:1]) if role == "bwd" else ()
            via = f"it is a derivative rule of `{fn.name}`, which is traced"
            out.append((target, OutgoingCall("", traced=None, via=via, closed=False, staged="may", static_args=static,
                                             pytree_args=pytrees), False))
    return out


def _nondiff_positions(ctx: Context, fn: ast.AST) -> tuple[int, ...]:
    """``nondiff_argnums`` of a ``@partial(jax.custom_jvp, nondiff_argnums=(0,))`` function (literal ints), and
    the positions of its ``nondiff_argnames`` (JAX turns the names into positions of ``fn``'s parameters: the
    bwd/jvp rule gets them first, in that order; tests/test_lint_ways_reached.py runs one under jit)."""
    args = getattr(fn, "args", None)
    params = [p.arg for p in args.posonlyargs + args.args] if isinstance(args, ast.arguments) else []
    for dec in getattr(fn, "decorator_list", ()):
        if isinstance(dec, ast.Call):
            target = dec.func
            if (ctx.info.resolve(target) or "").endswith("partial") and dec.args:
                target = dec.args[0]
            if ctx.info.resolve(target) in known.CUSTOM:
                return nondiff_options(ctx, params, dec.keywords)
    return ()


def nondiff_options(ctx: Context, params: list[str], keywords: list[ast.keyword]) -> tuple[int, ...]:
    """The positions of ``params`` that a custom_jvp/custom_vjp call's ``nondiff_argnums`` (literal ints, negative
    ones counted from the end) and ``nondiff_argnames`` keywords declare non-differentiated."""
    found: set[int] = set()
    for k in keywords:
        if k.arg == "nondiff_argnums":
            found.update(i % len(params) for i in literal_ints(ctx.info.literal(k.value))
                         if -len(params) <= i < len(params))
        elif k.arg == "nondiff_argnames":
            lit = ctx.info.literal(k.value)
            items = lit.elts if isinstance(lit, (ast.Tuple, ast.List)) else [lit]
            found.update(params.index(e.value) for e in items if isinstance(e, ast.Constant) and e.value in params)
    return tuple(sorted(found))


def _nondiff_count(ctx: Context, fn: ast.AST) -> int:
    return len(_nondiff_positions(ctx, fn))


def resolve_incoming(ctx: Context, calls: list[tuple[str, OutgoingCall]]
                     ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, OutgoingCall, bool]]:
    """Defs of this module named by calls from other modules (``"f"`` or ``"Class.method"``); a name
    this module only imports (a package ``__init__`` re-export) is passed on as an outgoing call."""
    idx = index(ctx)
    out = []
    for name, edge in calls:
        head, _, rest = name.partition(".")
        if not rest and head in idx.functions:
            out.append((idx.functions[head], edge, False))
        elif rest and "." not in rest and head in idx.classes:
            _method(ctx, head, rest, edge, set())
        elif head in idx.relative:
            level, target = idx.relative[head]
            ctx.cg_outgoing.append(
                _with(edge, target=f"{target}.{rest}" if rest else target, level=level))
        elif head in ctx.info.aliases:
            q = ctx.info.aliases[head]
            ctx.cg_outgoing.append(_with(edge, target=f"{q}.{rest}" if rest else q))
    return out + ctx.take_cg_local()


def class_bases(ctx: Context) -> list[tuple[str, list[tuple[int, str]], frozenset[str]]]:
    """Each module-level class with its bases as (relative level, dotted name) and the methods it defines, for
    finding subclasses across modules (``lint/traced.py``); classes whose bases are all builtins or library
    classes are left out."""
    idx = index(ctx)
    out = []
    for name, cls in idx.classes.items():
        bases: list[tuple[int, str]] = []
        for b in cls.bases:
            if isinstance(b, ast.Subscript):
                b = b.value  # `Environment[EnvState, EnvParams]`: a generic base is its class
            if isinstance(b, ast.Name) and b.id in idx.relative:
                bases.append(idx.relative[b.id])
            elif isinstance(b, ast.Name) and b.id in idx.classes:
                bases.append((-1, b.id))
            else:
                q = ctx.info.resolve(b)
                if q and not q.startswith(".") and q.split(".")[0] not in _LIBRARY_HEADS and "." in q:
                    bases.append((0, q))
        if bases:
            out.append((name, bases, frozenset(idx.methods.get(name, {}))))
    return out
