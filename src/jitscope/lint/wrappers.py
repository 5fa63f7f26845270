"""Jit-wrapper summaries: which parameters of a project function end up in a jit's cache key.

jit keys its cache on the function object it wraps and on the values of its static arguments
(hashed; a function, a lambda or a ``partial`` hashes by identity). A project function that hands one
of its own parameters to a jit is therefore part of the jit: its callers decide the cache key. Two
ways count, each recorded with the line that establishes it:

- **static**: the parameter is passed, unchanged, at a static position of a jitted call inside the
  function: ``fun = jax.jit(fun, static_argnums=(0, 1)); return fun(cond_fun, body_fun, x)``, an
  inline ``jax.jit(g, static_argnames="n")(x, n=n)``, a call of a decorated
  ``@partial(jax.jit, static_argnums=...)`` function of the module, or a call of another summarized
  function of the module at one of its summarized positions;
- **jitted**: the parameter itself is wrapped: ``jax.jit(f)``, ``partial(nnx.jit, ...)(f)``,
  ``jax.pmap(f)`` (unconditionally or not: ``maybe_jit`` that jits only when asked is a wrapper too).

A caller passing a value made anew on each call (a lambda, a local def, a ``partial``) or on each
loop iteration into such a parameter misses the cache every time: the rules asking
``_static_args.static_arguments`` see these calls as jitted calls (JS605, JS208, JS602, JS604), and
their findings say which line makes the parameter static. Functions of another linted module are
summarized there and handed to the caller's file by the runner (``lint/wrappers_join.py``; the runner
sets ``PROJECT``: file -> ``(dotted target, import level)`` -> summary); only a parameter never rebound in
the function is summarized.
"""

from __future__ import annotations

import ast
import bisect
import os
from collections import namedtuple

from .astutil import iter_child_nodes
from .astutil import own_nodes as _own_nodes_of
from .jit_applied import application, portable
from .scope import JIT_LIKE, decorator_spec, spec_from_call

Def = ast.FunctionDef | ast.AsyncFunctionDef
_AOT = frozenset({"lower", "trace", "eval_shape"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

# Summaries of the other linted modules' functions that a file's calls reach: file -> (target, level) -> summary.
# Set by the runner (``wrappers_join.join``) for the files it lints again once every module was summarized; empty otherwise.
PROJECT: dict[str, dict[tuple[str, int], Summary]] = {}


# Named tuples made by ``collections.namedtuple`` (what ``typing.NamedTuple`` makes too), so that the lint path
# does not import ``typing`` (docs/architecture.md, "What a command imports"). Fields, in order:
class KeyParam(namedtuple("KeyParam", ("name", "index", "kind", "via", "certain", "applied", "needs"),
                          defaults=(False, None, None))):
    """A parameter of a summarized function that reaches a jit's cache key."""

    __slots__ = ()
    # name: str
    # index: int | None  -- position (None: keyword-only)
    # kind: str  -- "static" or "jitted"
    # via: str  -- how: "`jax.jit(..., static_argnums=(0, 1, 3))` (loop.py:78) gets it as a static argument"
    # certain: bool = False  -- on every call of the function (the jit and its binding are not under a condition)
    # applied: tuple | None = None  -- kind "jitted": how the jit is applied (``lint/wrapped.py`` traces the
    #   caller's function with it): (jit's qualified name, its options as ``wrapped.option`` rows, the gate,
    #   "file:line"); the gate is ``(parameter, index, default, sense)`` when the jit runs only if that parameter
    #   is true (sense True) or false (sense False), ``None`` when no condition, ``()`` when a condition the model
    #   cannot read.
    # needs: tuple | None = None  -- kind "static" of a jitted def: why the def needs it static
    #   (``static_need.static_need``: (what, "file:line")), so tracing it is no fix


class Summary(namedtuple("Summary", ("function", "params", "returns", "forwards"), defaults=(None, None))):
    """What a summarized function puts in a jit's cache key."""

    __slots__ = ()
    # function: str
    # params: tuple[KeyParam, ...]
    # returns: tuple | None = None  -- it returns a jit of one of its parameters (``maybe_jit(fn, **kw)``
    #   returning ``jax.jit(fn, **kw)``): (that parameter's position, the jit's name, its static spec, whether
    #   the spec is the caller's keywords).
    # forwards: tuple | None = None  -- it jits a function with static positions its caller chooses and calls
    #   it on its own ``*args`` (``def check(f, *args, static_argnums=()): return jax.jit(f,
    #   static_argnums=static_argnums)(*args)``): (the option's parameter, its position or None, how many
    #   positional parameters come before ``*args``, "file:line" of the jitted call, whether every call of it
    #   makes that call).


def module_summaries(ctx) -> dict[str, Summary]:
    """Summaries of the module-level functions (not themselves jitted) that put a parameter in a jit's key."""
    memo = ctx.table(module_summaries)
    cached = memo.get("summaries")
    if cached is not None:
        return cached
    info = ctx.info
    out: dict[str, Summary] = {}
    memo["summaries"] = out  # before the walk: a summary being built reads the (partial) table
    if not any(q in JIT_LIKE or (q or "").endswith("partial") for q in info.callees.values()):
        return out
    fns = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
           and s.name not in info.jitted_callables]
    base = os.path.basename(ctx.filename)
    for _ in range(3):  # a function calling a summarized one is summarized the next round
        changed = False
        lines = sorted(f.lineno for f, q in info.callees.items()
                       if q in JIT_LIKE or (q or "").endswith("partial") or (
                           isinstance(f, ast.Name) and (f.id in out or f.id in info.jitted_callables)))
        for fn in fns:
            k = bisect.bisect_left(lines, fn.lineno)
            if k == len(lines) or lines[k] > (fn.end_lineno or fn.lineno):
                continue  # no jit, and no call of a jitted or summarized function, in it
            s = _summarize(ctx, fn, out, base) or _factory(ctx, fn, base)
            if s is not None and out.get(fn.name) != s:
                out[fn.name] = s
                changed = True
        if not changed:
            break
    return out


def _summarize(ctx, fn: Def, known: dict[str, Summary], base: str) -> Summary | None:
    info = ctx.info
    positional = [p.arg for p in fn.args.posonlyargs + fn.args.args]
    params = set(positional) | {p.arg for p in fn.args.kwonlyargs}
    body = list(_own_nodes(fn))
    rebound = {n.id for n in body if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    live = params - rebound
    if not live:
        return None
    local_jit: dict[str, tuple] = {}
    stores: dict[str, int] = {}
    for n in body:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            j = _jitting(ctx, n.value)
            if j is not None:
                local_jit[n.targets[0].id] = (*j, n.value)
    always = _unconditional(fn)
    found: dict[str, KeyParam] = {}

    def mark(name: str, kind: str, via: str, certain: bool = False, applied: tuple | None = None) -> None:
        if name in live and (name not in found or (certain and not found[name].certain)):
            found[name] = KeyParam(name, positional.index(name) if name in positional else None, kind, via,
                                   certain, applied)

    # `jax.jit(fn).lower(*args)`: lowered for inspection (cost analysis, HLO), never called: its cache is no concern
    inspected = {a.value for a in body if isinstance(a, ast.Attribute) and a.attr in _AOT}
    for n in body:
        if not isinstance(n, ast.Call):
            continue
        j = _jitting(ctx, n)
        if j is not None and isinstance(j[1], ast.Name) and n not in inspected:
            mark(j[1].id, "jitted", f"`{j[0]}` ({base}:{n.lineno}) jits it: the function object is the cache key",
                 n in always, application(ctx, fn, n, j[0], f"{base}:{n.lineno}"))
        func = n.func
        spec = wrapped = where = None
        sure = n in always
        if isinstance(func, ast.Name) and func.id in local_jit:
            q, wrapped, spec, line, made = local_jit[func.id]
            where = f"`{q}(..., {_spec_text(spec)})` ({base}:{line})"
            sure = sure and made in always and stores.get(func.id) == 1
        elif isinstance(func, ast.Call) and _jitting(ctx, func) is not None:
            q, wrapped, spec, line = _jitting(ctx, func)
            where = f"`{q}(..., {_spec_text(spec)})` ({base}:{line})"
        elif isinstance(func, ast.Name) and func.id not in rebound and func.id not in params:
            if (module_jit := info.module_jit(func.id)) is not None:
                def_name, spec = module_jit
                wrapped = info.defs.get(def_name)
                where = f"`{func.id}` (jitted, {_spec_text(spec)})"
            elif func.id in known and known[func.id].function != fn.name:
                _through(known[func.id], n, mark, sure)
                continue
        if spec is None or (not spec.argnums and not spec.argnames):
            continue
        names = _positional_names(info, wrapped)
        for i, a in enumerate(n.args):
            if isinstance(a, ast.Starred):
                break
            if isinstance(a, ast.Name) and (i in spec.argnums or (names and i < len(names) and names[i] in
                                                                   spec.argnames)):
                mark(a.id, "static", f"{where} gets it as a static argument", sure)
        for k in n.keywords:
            if k.arg and isinstance(k.value, ast.Name) and (k.arg in spec.argnames or (
                    names and k.arg in names and names.index(k.arg) in spec.argnums)):
                mark(k.value.id, "static", f"{where} gets it as a static argument", sure)
    returns = _returned_jit(ctx, fn, body, positional, always, base)
    forwards = _forwarded(ctx, fn, body, live, positional, local_jit, always, base)
    if not found and forwards is None:
        return None
    return Summary(fn.name, tuple(found[k] for k in sorted(found, key=lambda p: (found[p].index is None,
                                                                               found[p].index or 0, p))), returns,
                   forwards)


def _forwarded(ctx, fn: Def, body: list, live: set[str], positional: list[str], local_jit: dict, always: set,
               base: str) -> tuple | None:
    """``(option parameter, its position, positional parameters before *args, where, on every call)`` when ``fn`` calls a jit
    whose ``static_argnums`` is one of its parameters on its own ``*args``, unchanged: ``jax.jit(f,
    static_argnums=s)(*args)`` or ``g = jax.jit(f, static_argnums=s)``, then ``g(*args)``."""
    star = fn.args.vararg.arg if fn.args.vararg else None
    if star is None or any(isinstance(n, ast.Name) and n.id == star and not isinstance(n.ctx, ast.Load) for n in body):
        return None
    for n in body:
        if not isinstance(n, ast.Call) or len(n.args) != 1 or not isinstance(n.args[0], ast.Starred) \
                or not isinstance(n.args[0].value, ast.Name) or n.args[0].value.id != star:
            continue
        made = n.func
        if isinstance(made, ast.Name) and made.id in local_jit:
            made = local_jit[made.id][-1]
        if not isinstance(made, ast.Call) or _jitting(ctx, made) is None:
            continue
        option = next((k.value for k in made.keywords if k.arg == "static_argnums"), None)
        if isinstance(option, ast.Name) and option.id in live:
            index = positional.index(option.id) if option.id in positional else None
            return option.id, index, len(positional), f"{base}:{n.lineno}", n in always
    return None


def _factory(ctx, fn: Def, base: str) -> Summary | None:
    """A decorator factory: ``def my_jit(**kw)`` returning ``partial(jax.jit, **kw)``, or a def of its own that
    jits its parameter on every call (``def deco(f): return jax.jit(f, *args, **kw)``). Its call's arguments are
    the jit's options; the function it decorates is jitted (the parameter ``<decorated>``)."""
    last = fn.body[-1] if fn.body else None
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    info, v, applied = ctx.info, last.value, None
    if isinstance(v, ast.Call) and (info.resolve(v.func) or "").endswith("partial") and len(v.args) == 1 \
            and info.resolve(v.args[0]) in JIT_LIKE:
        applied = application(ctx, fn, ast.Call(func=v.func, args=[], keywords=v.keywords), info.resolve(v.args[0]),
                              f"{base}:{v.lineno}")
    elif isinstance(v, ast.Name):
        inner = next((s for s in fn.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == v.id),
                     None)
        first = inner.args.args[0].arg if inner is not None and len(inner.args.args) == 1 else None
        for n in _own_nodes(inner) if first else ():
            j = _jitting(ctx, n)
            if j is not None and isinstance(j[1], ast.Name) and j[1].id == first and n in _unconditional(inner):
                applied = application(ctx, fn, n, j[0], f"{base}:{n.lineno}")
                break
    if applied is None or applied[2] is not None:
        return None
    via = f"`{applied[0]}` ({applied[3]}) jits the function `{fn.name}(...)` decorates"
    return Summary(fn.name, (KeyParam("<decorated>", None, "decorates", via, True, applied),))


def _returned_jit(ctx, fn: Def, body: list, positional: list[str], always: set, base: str) -> tuple | None:
    """(position, jit, spec, forwards, certain, where) when ``fn`` returns a jit of its parameter (alone, or as
    one branch of ``a if c else b``); ``forwards``: the jit gets ``fn``'s own ``**kwargs``, so its caller's
    keywords are the static options; ``certain``: every call returns it."""
    kwarg = fn.args.kwarg.arg if fn.args.kwarg else None
    for n in body:
        if not isinstance(n, ast.Return) or n.value is None:
            continue
        for e in ((n.value.body, n.value.orelse) if isinstance(n.value, ast.IfExp) else (n.value,)):
            j = _jitting(ctx, e)
            if j is None or not isinstance(j[1], ast.Name) or j[1].id not in positional:
                continue
            forwards = any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg
                           for k in e.keywords)  # type: ignore[union-attr]
            certain = n in always and e is n.value
            return positional.index(j[1].id), j[0], j[2], forwards, certain, f"{base}:{n.lineno}"
    return None


def _through(callee: Summary, call: ast.Call, mark, sure: bool) -> None:
    for p, a in passed_through(callee, call):
        if isinstance(a, ast.Name):
            mark(a.id, p.kind, f"`{callee.function}` passes it on: {p.via}", sure and p.certain,
                 portable(p.applied))


def _unconditional(fn: Def) -> set[ast.AST]:
    """Nodes of ``fn`` that run on every call reaching the end of its straight-line top level: those of its
    top-level simple statements, outside the branches of ``a if c else b``, ``and``/``or`` and comprehensions;
    none when a compound statement may return or raise first."""
    out: set[ast.AST] = set()
    simple = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)
    for s in fn.body:
        if not isinstance(s, simple) and any(isinstance(n, (ast.Return, ast.Raise)) for n in _own_nodes_of(s)):
            return out  # `if key is None: return None` first: some calls never reach the jit
    stack: list[ast.AST] = [s for s in fn.body if isinstance(s, simple)]
    while stack:
        n = stack.pop()
        out.add(n)
        if isinstance(n, (*_NESTED, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(n, ast.IfExp):
            stack.append(n.test)
        elif isinstance(n, ast.BoolOp):
            stack.append(n.values[0])
        else:
            stack.extend(iter_child_nodes(n))
    return out


def _own_nodes(fn: Def):
    """The nodes of ``fn``'s body, not entering nested functions, lambdas or classes."""
    return _own_nodes_of(*fn.body)


def _jitting(ctx, expr: ast.AST) -> tuple | None:
    """(wrapper, wrapped expression, spec, line) when ``expr`` applies a compiling wrapper: ``jax.jit(f, ...)``,
    ``partial(jax.jit, ...)(f)``."""
    if not isinstance(expr, ast.Call) or not expr.args:
        return None
    info = ctx.info
    q = info.callees.get(expr.func) if expr.func in info.callees else info.resolve(expr.func)
    if q in JIT_LIKE:
        return q, expr.args[0], spec_from_call(info, expr, q), expr.lineno
    if isinstance(expr.func, ast.Call):
        spec = decorator_spec(info, expr.func)
        if spec is not None and spec.wrapper in JIT_LIKE:
            return spec.wrapper, expr.args[0], spec, expr.lineno
    return None


def _positional_names(info, wrapped) -> list[str]:
    fn = info.defs.get(wrapped.id) if isinstance(wrapped, ast.Name) else wrapped if isinstance(wrapped, Def) else None
    if fn is None or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    return [p.arg for p in fn.args.posonlyargs + fn.args.args]


def _spec_text(spec) -> str:
    parts = []
    if spec.argnums:
        parts.append(f"static_argnums={spec.argnums if len(spec.argnums) > 1 else spec.argnums[0]}")
    if spec.argnames:
        parts.append(f"static_argnames={spec.argnames if len(spec.argnames) > 1 else repr(spec.argnames[0])}")
    return ", ".join(parts) or "..."


def _compiling_call_lines(ctx) -> list[int]:
    """Sorted lines of the module's calls of a compiling wrapper or of a ``partial`` (resolved callees).
    Not ``_scan.jit_lines`` (lines whose text mentions jit/pmap): the two once shared one cache key, and
    whichever ran first answered for both."""
    return sorted(f.lineno for f, q in ctx.info.callees.items() if q in JIT_LIKE or (q or "").endswith("partial"))


def jits_in(ctx, fn: ast.AST | None) -> bool:
    """Does ``fn``'s source range hold a call of a compiling wrapper or of a ``partial`` (cheap: the module's
    resolved callees, no walk)?"""
    if fn is None:
        return False
    cache = ctx.table(jits_in)
    found = cache.get(fn)
    if found is None:
        lines = ctx.memo(_compiling_call_lines)
        k = bisect.bisect_left(lines, fn.lineno)
        found = cache[fn] = k < len(lines) and lines[k] <= (fn.end_lineno or fn.lineno)
    return found


def returns_jit(ctx) -> bool:
    """Does a function of this module, or of another module this file's calls reach, return a jit?"""
    return any(s.returns for s in module_summaries(ctx).values()) or any(
        s.returns for s in PROJECT.get(ctx.filename, {}).values())


def summary_for_call(ctx, call: ast.Call) -> Summary | None:
    """The summary of the function ``call`` calls: a module-level function of this module (not shadowed
    here), or one of another linted module the runner handed over (``PROJECT``)."""
    func = call.func
    if isinstance(func, ast.Name):
        own = module_summaries(ctx).get(func.id)
        if own is not None:
            return own if ctx._local_frame(func.id) is None else None
    key = import_target(ctx, func)
    if key is None:
        return None
    if not PROJECT:
        ctx.static_imports.add(key)  # for the runner's join across modules
        return None
    return PROJECT.get(ctx.filename, {}).get(key)


def import_target(ctx, func: ast.AST) -> tuple[str, int] | None:
    """(dotted target, relative import level) of a call of an imported project function: ``helper`` of
    ``from .util import helper``, ``loop.while_loop`` of ``from jaxopt._src import loop``."""
    names = _project_imports(ctx)
    if isinstance(func, ast.Name):
        hit = names.get(func.id)
        if hit is None or ctx._local_frame(func.id) is not None:
            return None
        return hit
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        hit = names.get(func.value.id)
        if hit is None or ctx._local_frame(func.value.id) is not None:
            return None
        return f"{hit[0]}.{func.attr}", hit[1]
    return None


def _project_imports(ctx) -> dict[str, tuple[str, int]]:
    """Module-level names imported from outside the known libraries: name -> (dotted target, level)."""
    return ctx.memo(_find_project_imports)


def _find_project_imports(ctx) -> dict[str, tuple[str, int]]:
    from .callgraph import _LIBRARY_HEADS, index

    idx = index(ctx)
    found = {name: (q, 0) for name, q in ctx.info.aliases.items()
             if q.split(".")[0] not in _LIBRARY_HEADS and name not in idx.functions}
    found.update({name: (t, lv) for name, (lv, t) in idx.relative.items()})
    return found


def passed_through(summary: Summary, call: ast.Call) -> list[tuple[KeyParam, ast.expr]]:
    """(parameter, argument) for each argument of ``call`` landing on a summarized parameter."""
    by_index = {p.index: p for p in summary.params if p.index is not None}
    by_name = {p.name: p for p in summary.params}
    out = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        if i in by_index:
            out.append((by_index[i], a))
    out += [(by_name[k.arg], k.value) for k in call.keywords if k.arg in by_name]
    if summary.forwards is not None:
        out += _forwarded_static(summary, call)
    return out


def _forwarded_static(summary: Summary, call: ast.Call) -> list[tuple[KeyParam, ast.expr]]:
    """The arguments a call puts in a forwarding function's ``*args`` at the static positions it names."""
    option, index, before, where, sure = summary.forwards
    value = next((k.value for k in call.keywords if k.arg == option), None)
    if value is None and index is not None and index < len(call.args):
        value = call.args[index]
    if value is None or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    if isinstance(value, ast.Constant) and isinstance(value.value, int):
        nums = [value.value]
    elif isinstance(value, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int) for e in value.elts):
        nums = [e.value for e in value.elts]  # type: ignore[attr-defined]
    else:
        return []
    rest = call.args[before:]
    via = f"`{summary.function}` jits its function with `static_argnums={option}` and calls it on its `*args` ({where})"
    return [(KeyParam(f"*args[{k}]", None, "static", via, sure), rest[k]) for k in nums if -len(rest) <= k < len(rest)]
