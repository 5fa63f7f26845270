"""The tracing model's verdicts: what holds on every way a function is reached (must), and on some (may).

Rules do not decide how sure a finding is; they say what their claim rests on (``Rule.requires``)
and ``judge`` asks the model, in the manner of pyright's code-flow analysis:

* ``abstract``: the flagged value is an abstract tracer (``if x > 0`` raises only then). It is a
  **must** fact when the value is abstract on every way the function is reached and every way is
  known: the function is traced by its own decorator, or handed to a transform and referenced
  nowhere else, or only called from traced code with abstract values (``Context.is_must``);
  otherwise a **may** fact (a public function other modules may call eagerly, a parameter with a
  default the caller may not pass, an ``in_axes`` computed at run time).
* ``staged``: the function's body is traced into a cached jaxpr (``jit``, a ``lax.scan`` body),
  so a ``print`` runs once per trace and a Python loop is unrolled into the graph. An eager
  ``vmap``, ``grad`` or ``shard_map`` runs the body on every call: nothing is staged, and such
  findings are not reported.

``error`` needs a must fact; a may fact gives at most a ``warning`` (``likely``). ``established``
says how the function came to be traced, for the finding's message and ``details``.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from functools import lru_cache

from ..jaxmodel import known, values
from . import hostonly
from .astutil import ast_walk, iter_child_nodes, walk_in_order

MUST, MAY = "must", "may"
UNKNOWN = "<unknown caller>"  # lint/unknown_callers.py: a public function walked for a caller not linted
NESTED = "<enclosing traced function>"


@lru_cache(maxsize=4096)
def _in_package(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


def references(ctx) -> Counter:  # ctx: lint.context.Context
    """How often each name is read in the module (``f`` and ``obj.f`` both count for ``f``); built once."""
    return ctx.memo(_count_references)


def _count_references(ctx) -> Counter:
    refs: Counter = Counter()
    for n in walk_in_order(ctx.tree):
        t = type(n)
        if t is ast.Name and type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
            refs[n.id] += 1  # type: ignore[attr-defined]
        elif t is ast.Attribute and type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
            refs[n.attr] += 1  # type: ignore[attr-defined]
    return refs


def is_script(ctx) -> bool:
    """Is the linted file a script (outside any package): its module-level code is the whole program?"""
    return not _in_package(os.path.dirname(os.path.abspath(ctx.filename)))


def call_shapes(ctx) -> dict[str, list[tuple[int, frozenset[str] | None]]]:
    """Every ``name(...)`` call in the module: (positional count, keywords), or (-1, None) when a
    ``*args``/``**kwargs`` hides what is passed; built once, on first need."""
    return ctx.memo(_find_call_shapes)


def _find_call_shapes(ctx) -> dict:
    shapes: dict = {}
    for n in walk_in_order(ctx.tree):
        if type(n) is ast.Call and type(n.func) is ast.Name:  # type: ignore[attr-defined]
            star = any(type(a) is ast.Starred for a in n.args) or any(k.arg is None for k in n.keywords)  # type: ignore[attr-defined]
            shapes.setdefault(n.func.id, []).append(  # type: ignore[attr-defined]
                (-1, None) if star else (len(n.args), frozenset(k.arg for k in n.keywords)))  # type: ignore[attr-defined]
    return shapes


def defaults_never_passed(ctx, fn: ast.AST, spec, defaulted: list[tuple[int, str]]) -> set[str]:
    """Parameters with a default that no caller passes: every call of the decorated (or wrapped) function
    is in this module, none passes them, so they hold their Python default (the jaxmodel's python kind)."""
    name = getattr(fn, "name", "")
    if not defaulted or not name or spec.via or not ctx.frames or importable(ctx, _Probe(fn)):
        return set()
    calls = call_shapes(ctx).get(name, [])
    if not calls or references(ctx)[name] != len(calls) + ctx.info.wrapped_refs.get(name, 0):
        return set()  # handed elsewhere as a value, or never called here: its callers are unknown
    if any(npos < 0 for npos, _ in calls):
        return set()
    return {p for i, p in defaulted if all(npos <= i and p not in (kws or ()) for npos, kws in calls)}


def python_passed(ctx, fn: ast.AST, spec, positional: list[str]) -> set[str]:
    """Under a wrapper that keeps non-array leaves static (``filter_jit``: ``spec.filter``), the positional
    parameters that every call of the decorated function passes a Python literal (``run(x, 3)``), when every
    call is in this module (``defaults_never_passed``'s condition): Python values on every way, never traced."""
    name = getattr(fn, "name", "")
    if not spec.filter or spec.assumed or not name or spec.via or not ctx.frames or importable(ctx, _Probe(fn)):
        return set()
    calls = [n for n in walk_in_order(ctx.tree) if type(n) is ast.Call and type(n.func) is ast.Name
             and n.func.id == name]  # type: ignore[attr-defined]
    if not calls or references(ctx)[name] != len(calls) + ctx.info.wrapped_refs.get(name, 0) \
            or any(type(a) is ast.Starred for c in calls for a in c.args):  # type: ignore[attr-defined]
        return set()
    return {p for i, p in enumerate(positional)
            if all(i < len(c.args) and _literal(c.args[i]) for c in calls)}  # type: ignore[attr-defined]


def _literal(node: ast.AST) -> bool:
    """``3``, ``-1``, ``True``, ``"mean"``, ``(2, 3)``: a Python value, never an array."""
    if type(node) is ast.UnaryOp:
        node = node.operand  # type: ignore[attr-defined]
    if type(node) is ast.Tuple:
        return all(_literal(e) for e in node.elts)  # type: ignore[attr-defined]
    return type(node) is ast.Constant and not isinstance(node.value, bytes)  # type: ignore[attr-defined]


class _Probe:
    """A frame-like holder of a function node, for ``importable``."""

    def __init__(self, node: ast.AST) -> None:
        self.node = node


def importable(ctx, frame) -> bool:
    """Can code outside the linted files call this function: a public module-level function or method
    of a module inside a package? (Scripts, tests, nested functions and private names are called only
    where the linter sees.)"""
    node = frame.node
    name = getattr(node, "name", "")
    if not name or (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))):
        return False
    top = node in ctx.tree.body or any(isinstance(s, ast.ClassDef) and node in s.body for s in ctx.tree.body)
    return top and _in_package(os.path.dirname(os.path.abspath(ctx.filename)))


def closed(ctx, frame) -> bool:
    """Is every way ``frame``'s function is reached known to the linter (computed once per frame)?"""
    if frame.closed is not None:
        return frame.closed
    spec = frame.spec
    out = False
    if spec is not None and isinstance(frame.node, ast.Lambda):
        out = bool(spec.closed)  # a lambda is referenced only where it is written
    elif spec is not None and frame.node is not None:
        name = frame.node.name  # type: ignore[attr-defined]
        if spec.closed is None and not importable(ctx, frame):
            # handed to transforms (or called from traced code) and read nowhere else
            seen = ctx.info.wrapped_refs.get(name, 0) if not spec.via else spec.refs_seen
            out = references(ctx)[name] <= seen
        else:
            out = bool(spec.closed)
    frame.closed = out
    return out


def staged(ctx) -> str:
    """``must``/``may``/``""``: is the code being checked traced into a cached jaxpr on every / some / no way?"""
    for f in reversed(ctx.frames):
        spec = f.spec
        if spec is None:
            return ""
        if spec.wrapper == NESTED and f is not ctx.frames[1]:
            continue  # a helper defined inside traced code runs in its parent's trace
        if spec.staged == MUST and not closed(ctx, f):
            return MAY
        return spec.staged
    return ""


def judge(ctx, rule, subject: ast.AST | None, severity: str) -> tuple[str, str, str] | None:
    """(severity, confidence, note) for a finding of ``rule`` about ``subject``, or None: not a finding.

    ``note`` says why an error rule reports a warning (what the model could not prove)."""
    need = rule.requires
    if need == "abstract" and _handles_concretization(ctx, subject):
        return None  # `try: int(x) ... except TypeError:`: the traced case is handled on purpose
    if need == "abstract" and subject is not None and in_accessor(ctx) and _reads_traced(ctx, subject):
        return None  # a pytree's `-> int` accessor reading its fields: made for the host, not for jit
    if need == "abstract" and type(subject) is ast.Name:
        owner = ctx._local_frame(subject.id)  # type: ignore[attr-defined]
        if owner is not None and subject.id in owner.elements:  # type: ignore[attr-defined]
            return None  # `if cache:` on an element of a carry: may be a dict or None, whose truth is Python's
    if need == "staged":
        level = staged(ctx)
        if not level or _python_only(ctx) or in_accessor(ctx):
            return None  # an accessor (`-> float` of a pytree) runs on the host: nothing there is staged
    elif need == "abstract":
        level = MUST if subject is not None and ctx.is_must(subject) else MAY
    else:
        level = MUST
    if _unknown_caller(ctx):
        return "info", "likely", ""  # no jit of it is seen: it fails only if a caller jits it (lint/unknown_callers.py)
    if severity in ("error", "warning") and (ambiguous := _matched_by_name(ctx)):
        # `jax.jit(obj.step)` names a method by its attribute only, and several defs of the module carry that
        # name: which one the object's is, the source does not say. This one being traced is a guess: info.
        return "info", "likely", ambiguous
    if severity in ("error", "warning") and _guessed_parameter(ctx, subject):
        # The only link from a jit to this parameter is a convention (an equinox/Flax module's `__call__` runs
        # under its caller's jit), and the parameter is not annotated as an array: equinox's filter_jit keeps a
        # Python int or bool static, and no call that passes an array is seen. The claim is a guess: info.
        return "info", "likely", "no jit of it is seen and the parameter may be a Python value: traced only by " \
                                 "convention"
    if severity in ("error", "warning") and (flag := hostonly.off_flag_branch(ctx, subject)):
        # `if DEBUG: print(np.asarray(x))` with `DEBUG = False`: the branch runs only when someone turns the flag
        # on, for an eager debugging run; under jit it would fail then, which is what the info says.
        return "info", "likely", f"it runs only when `{flag}` is set (False in this module: a debugging branch)"
    if severity == "error" and level == MAY:
        return "warning", "likely", _why_may(ctx, need)
    return severity, "", ""


def _matched_by_name(ctx) -> str:
    """Why the code being checked is traced only by a name match, if it is: reached through ``jax.jit(obj.name)``
    (``StaticSpec.by_name``) while the module defines more than one function of that name."""
    for f in reversed(ctx.frames):
        spec = f.spec
        if spec is None:
            return ""
        if spec.wrapper == NESTED:
            continue
        if not spec.by_name or spec.observed or spec.via:
            return ""
        n = ctx.memo(_def_names).get(f.name, 0)
        return (f"a method `{f.name}` of some object is jitted and {n} functions here are named so: which one is "
                "not known") if n > 1 else ""
    return ""


def _def_names(ctx) -> Counter:
    """How many functions of each name the module defines (at any depth)."""
    return Counter(n.name for n in ast_walk(ctx.tree) if type(n) in (ast.FunctionDef, ast.AsyncFunctionDef))


def _guessed_parameter(ctx, subject: ast.AST | None) -> bool:
    """Does the finding rest on a parameter, not annotated as an array, of a function traced only by a
    convention (``StaticSpec.assumed``: no call of it seen, no run observed it)?"""
    if not isinstance(subject, ast.AST):  # a range of source (``Span``) names no value: nothing rests on a parameter
        return False
    for f in reversed(ctx.frames):
        spec = f.spec
        if spec is None:
            return False
        if spec.wrapper == NESTED:
            continue
        if not spec.assumed or spec.observed or isinstance(f.node, ast.Lambda) or f.node is None:
            return False
        from .pytrees import array_annotation

        args = f.node.args  # type: ignore[attr-defined]
        guessed = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                   if not array_annotation(a.annotation)} - {"self", "cls"}
        stack = [subject]
        while stack:  # the values the claim reads; `x.shape[0]` is static whatever x is
            n = stack.pop()
            if (type(n) is ast.Attribute and n.attr in _SHAPES) or type(n) is ast.Call:  # type: ignore[attr-defined]
                continue  # a jnp call's result is a tracer under jit whatever its arguments are
            if type(n) is ast.Name and n.id in guessed:  # type: ignore[attr-defined]
                return True
            stack.extend(iter_child_nodes(n))
        return False
    return False


def _unknown_caller(ctx) -> bool:
    """Is the code being checked walked only for a caller the linted files do not show (lint/unknown_callers.py)?
    A function nested in such a walk is too, whatever wraps it there: its closure holds the guessed tracers."""
    return any(f.spec is not None and f.spec.wrapper == UNKNOWN for f in ctx.frames)


def _python_only(ctx) -> bool:
    """Is the code being checked a helper that staged code calls with Python values only (``n_blocks(x.shape[0])``)?
    Its ``jnp`` results are tracers (claims about them hold), but what it does at trace time (a print, a
    module flag read, a memo) is its caller's trace machinery: claims resting on staging alone are not made."""
    spec = _entry_spec(ctx)
    return spec is not None and spec.python_only


def _entry_spec(ctx):
    """The spec of the function the walk entered traced code by (a helper nested in it runs in its trace)."""
    for f in reversed(ctx.frames):
        spec = f.spec
        if spec is None:
            return None
        if spec.wrapper == NESTED and f is not ctx.frames[1]:
            continue
        return spec
    return None


def in_accessor(ctx) -> bool:
    return any(f.spec is not None and f.spec.accessor for f in ctx.frames)


_SHAPES = frozenset({"shape", "ndim", "dtype", "size"})


def _reads_traced(ctx, node: ast.AST) -> bool:
    """Does ``node`` read a traced name or array field's values (not only Python values and shapes)?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is ast.Attribute and n.attr in _SHAPES:  # type: ignore[attr-defined]
            continue  # `x.shape[-1]`: static, whatever x is
        if type(n) in (ast.Name, ast.Attribute) and ctx.is_traced(n):
            return True
        stack.extend(iter_child_nodes(n))
    return False


def _handles_concretization(ctx, node: ast.AST | None) -> bool:
    """Is the code being checked in the body of a ``try`` whose handlers catch a failed concretization
    (``ConcretizationTypeError``, ``TypeError``, ``Exception``: jaxmodel/values.py)?"""
    parents = [*ctx.parents, node] if node is not None else list(ctx.parents)
    for i in range(len(parents) - 1, -1, -1):
        p = parents[i]
        if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(p, ast.Try) and i + 1 < len(parents) and parents[i + 1] in p.body:
            for h in p.handlers:
                types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                for t in types:
                    if t is None or (ctx.resolve(t) or "").rpartition(".")[2] in values.CONCRETIZATION_ERRORS:
                        return True
    return False


def _why_may(ctx, need: str) -> str:
    frame = next((f for f in reversed(ctx.frames) if f.spec is not None and f.spec.wrapper != NESTED), ctx.frame)
    name = frame.name
    if frame.spec is not None and frame.spec.assumed:
        return ""
    if not closed(ctx, frame):
        return f"not every caller of `{name}` is known, and some may pass Python values"
    if need == "staged":
        return f"`{name}` may also run untraced"
    return "the value may be a Python value on some way this code is reached"


def established(ctx) -> tuple[str, bool]:
    """How the code being checked came to be traced, and whether the message should say it (it is
    not visible at the function's own definition)."""
    for f in reversed(ctx.frames):
        spec = f.spec
        if spec is None:
            break
        if spec.wrapper == NESTED:
            continue
        if spec.via:
            return spec.via, True
        if spec.site:
            return f"`{f.name}` is handed to `{spec.wrapper}` ({os.path.basename(ctx.filename)}:" \
                   f"{spec.site.removeprefix('line ')})", True
        if isinstance(f.node, ast.Lambda):
            return f"a lambda handed to `{spec.wrapper}`", False
        return f"`{f.name}` is decorated with `{spec.wrapper}`", False
    return "", False


def rebuilt_argument(frame, name: str) -> bool:
    """Is ``name`` an argument of a function jitted directly here (not reached through a call), or a body a control-flow
    primitive traces (``lax.scan``'s carry), never rebound? jit and the primitives flatten the caller's pytree and
    rebuild it from tracers in each trace: the container is the trace's own."""
    spec = frame.spec
    return spec is not None and (spec.wrapper in known.COMPILING or spec.wrapper in known.BODIES) and not spec.via \
        and name in frame.params \
        and name not in frame.bound and name not in frame.static and name not in ("self", "cls")
