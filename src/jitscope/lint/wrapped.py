"""Functions jitted through a project wrapper are traced: ``step = maybe_jit(train_step)``, ``@my_jit``.

``lint/wrappers.py`` summarizes a project function that jits one of its parameters (kind ``jitted``) and
records here how (``application``): the jit, its options (literal, one of the wrapper's parameters, or the
wrapper's own ``**kwargs``), and the condition it runs under. Before the main walk ``mark`` finds every call
(and decorator, ``@maybe_jit`` / ``@partial(maybe_jit, ...)``) handing a function of the module to such a
parameter, in this module or, through the runner's join (``wrappers.PROJECT``), another linted one, and marks
that function traced exactly as ``jax.jit(f, ...)`` written there would (``ModuleInfo._mark``), its static
parameters those the options the call gives make static. The traced rules then see it, and their findings say
"`maybe_jit` (utils.py:12) jits it". A jit under a condition on one of the wrapper's parameters
(``jax.jit(f) if jit else f``, ``if not use_jit: return f``) is read at the call: the literal passed, or the
default; a default that turns the jit off leaves the function untraced, a value the model cannot read makes it
traced on some way only (a may fact: warnings, never errors).
"""

from __future__ import annotations

import ast
import os
from dataclasses import replace

from . import wrappers
from .jit_applied import gate_open, spec_for_call
from .scope import _function_names, _with_bound


def mark(ctx) -> None:
    """Mark the module's functions that a project wrapper jits as traced (before the main walk)."""
    info = ctx.info
    own = wrappers.module_summaries(ctx)
    imported = wrappers._project_imports(ctx) if info.calls else {}
    methods = list(_method_applications(ctx))
    if not own and not imported and not methods:
        return
    for c, scopes, decorated in [*_applications(info, own, imported), *methods]:
        s = c.summary if isinstance(c, _SelfCall) else wrappers.summary_for_call(ctx, c)
        if s is None:
            continue
        pairs = wrappers.passed_through(s, c) if decorated is None else [
            (p, decorated) for p in s.params if p.kind == "decorates"]
        for p, arg in pairs:
            if p.kind not in ("jitted", "decorates") or not p.applied:
                continue
            gate = p.applied[2]
            on = True if gate is None and p.certain else gate_open(gate, c) if gate else None
            if on is False:
                continue  # `maybe_jit(f)` with `jit=False` by default: f runs as Python
            skip = {p.name} | ({gate[0]} if gate else set())
            spec = spec_for_call(info, c, p.applied, skip)
            if spec is None:
                continue
            spec = replace(spec, staged="must" if on else "may", closed=None, refs_seen=1, site=f"line {c.lineno}",
                           via=f"`{s.function}` ({p.applied[3]}) jits it",
                           must_names=None if on else frozenset())
            for name, bound, kw, given in _function_names(arg):
                info._mark(name, scopes, _with_bound(spec, bound, kw, given))


def _applications(info, own: dict, imported: dict):
    """(call, scopes) for each call that may hand a function to a summarized wrapper, decorators included
    (``@maybe_jit`` as ``maybe_jit(f)``, ``@partial(maybe_jit, k=v)`` as ``maybe_jit(f, k=v)``)."""
    def wrapper(f: ast.AST) -> bool:
        if isinstance(f, ast.Name):
            return f.id in own or f.id in imported
        return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in imported

    for c, scopes in info.calls:
        if c.args and wrapper(c.func):
            yield c, scopes, None
    units: list[tuple[list, tuple]] = [(info.tree_body, (0,))]
    while units:
        body, scopes = units.pop()
        for s in body:
            if isinstance(s, ast.ClassDef):
                units.append((s.body, scopes + (s,)))
                continue
            if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for d in s.decorator_list:
                f, keywords = d, []
                if isinstance(d, ast.Call) and d.args and (info.resolve(d.func) or "").endswith("partial"):
                    f, keywords = d.args[0], d.keywords
                elif isinstance(d, ast.Call) and wrapper(d.func):  # `@my_jit(static_argnames=...)`: a factory
                    yield d, scopes, ast.Name(id=s.name)
                    continue
                if wrapper(f):
                    yield ast.Call(func=f, args=[ast.Name(id=s.name)], keywords=keywords, lineno=s.lineno), scopes, None


class _SelfCall(ast.Call):
    """``self.jit(f, ...)`` as a call of the method's function: ``self`` first, and the method's summary."""

    summary: wrappers.Summary


def _method_applications(ctx):
    """``self.jit(f, ...)`` in a method of a module-level class whose method ``jit`` jits its parameter."""
    base = os.path.basename(ctx.filename)
    for cls in ctx.tree.body:
        if not isinstance(cls, ast.ClassDef) or not wrappers.jits_in(ctx, cls):
            continue
        methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and m.args.args and m.args.args[0].arg == "self" and not m.decorator_list}
        found = {}
        for m in methods.values():
            if wrappers.jits_in(ctx, m):
                s = wrappers._summarize(ctx, m, {}, base)
                if s is not None and any(p.kind == "jitted" and p.applied for p in s.params):
                    found[m.name] = s
        if not found:
            continue
        for c, scopes in ctx.info.calls:
            f = c.func
            if c.args and cls in scopes and isinstance(f, ast.Attribute) and f.attr in found \
                    and isinstance(f.value, ast.Name) and f.value.id == "self":
                call = _SelfCall(func=f, args=[f.value, *c.args], keywords=c.keywords, lineno=c.lineno)
                call.summary = found[f.attr]
                yield call, scopes, None
