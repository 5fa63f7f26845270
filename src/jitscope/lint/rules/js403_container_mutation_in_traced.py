"""JS403 container-mutation-in-traced."""

from __future__ import annotations

import ast
import os

from ...jaxmodel.families import PROPAGATES_ARGUMENT_STATE
from .. import facts
from ..astutil import own_nodes
from ..context import STATIC_CALLS, Context
from ..rule import Rule
from ..scope import BODY_ARGS, JIT_LIKE, MUTATORS, TRACES
from ._reaching import reaching_values
from ._util import trace_time_effect_expected
from .js404_traced_value_on_self import holds_traced

_RETURNS_NONE = frozenset({"append", "extend", "insert", "remove", "clear", "update", "add", "discard",
                           "appendleft", "extendleft"})


class ContainerMutationInTraced(Rule):
    """Mutating a list, dict or set that outlives the trace (a global, closure or argument).

    ## What it does
    Flags ``.append``/``.extend``/``.update``/``.add``/... statements inside a traced
    function when the container is a module global, a variable of an enclosing function
    (seen from a separately traced body such as a ``lax.scan`` step), or a parameter of the
    traced function, and item assignment to a module-global container or, with a traced value, to a
    dict or list an untraced enclosing function built (a closure's memo, ``cache[k] = jnp.sin(x)``). Lists built and
    consumed inside the same function, ``**kwargs`` and calls whose result is used
    (``opt.update(...)`` of an optax transformation) are not flagged, nor are test files,
    functions traced only for shapes (``jax.eval_shape``, ``jax.make_jaxpr``) and functions
    or containers named for tracing (``traces.append(x)``): recording traces is their point.
    Appending static shapes (``shapes.append([jnp.shape(v) for v in leaves])``, numpyro's scan)
    is not flagged either: no tracer leaks. ``.update``/``.add``/``.pop`` on an object whose type
    is not known is flagged only in ``dict.update``'s own forms (``d.update(k=v)``,
    ``d.update({...})``): an object's own ``update(x)`` could be anything. A container of another
    module of the project (``from .state import CACHE``, ``state.CACHE`` after ``from . import
    state``) is flagged when a traced value goes in (``.append``/``.extend``/``.insert``,
    ``dict.update``'s forms, ``CACHE[k] = v``): a registry of Python values filled at trace time is not.
    A mutation of the module's own container that stores no traced value (a name counter
    ``count[name] += 1``, a scope stack of strings, ``.pop()``) leaks nothing: it is reported as
    ``info``, saying only that it runs while tracing, not on every call. An argument the function mutates and
    returns (``state.update(...); return state``) is handed back: quiet where the argument is the trace's own
    copy (a jitted function's, a ``lax.scan`` body's carry), ``info`` otherwise.

    ## Why is this bad?
    The mutation happens once, while tracing, and stores tracers in a container that lives
    on after the trace. Later calls do not append anything, and touching the stored
    tracers raises ``UnexpectedTracerError``.

    ## Example
    ```python
    history = []

    @jax.jit
    def step(x):
        history.append(x)
        return x + 1
    ```

    ## Use instead
    ```python
    @jax.jit
    def step(x):
        return x + 1, x        # return what you want to keep

    y, seen = step(x)
    history.append(seen)       # outside jit
    ```

    ## Fix safety
    No fix is offered.
    """

    code = "JS403"
    name = "container-mutation-in-traced"
    message = "`{expr}` mutates {owner} `{var}` inside traced function `{function}`: runs once at trace time and leaks tracers; return the values instead of mutating outer state"
    severity = "warning"
    requires = "staged"
    nodes = (ast.Call, ast.Assign, ast.AugAssign)
    calls = tuple(f".{m}" for m in MUTATORS)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr in MUTATORS):
                return
            if not isinstance(func.value, ast.Name):
                self._imported(node, func.value, ctx)
                return
            parent = ctx.parents[-1] if ctx.parents else None
            if func.attr in _RETURNS_NONE and not isinstance(parent, ast.Expr):
                return  # result used: `opt.update(...)` of an optax transformation, not dict.update
            var, expr, use = func.value.id, f"{func.value.id}.{func.attr}(...)", func.value
            if node.args and all(_static_shapes(ctx, a) for a in node.args):
                return  # recording shapes at trace time (numpyro's scan): deliberate, and no tracer leaks
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
            sub = next((t for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)), None)
            if sub is None:
                sub = next((t for t in targets if isinstance(t, ast.Subscript)), None)
                if sub is not None:
                    self._imported(node, sub.value, ctx)
                return
            if not ctx.is_module_global(sub.value.id) and not _closure_cache(ctx, sub.value.id, node):  # type: ignore[attr-defined]
                return  # item assignment on arguments/closures is often a Pallas Ref write: globals, closed-over dicts
            var, expr, use = sub.value.id, f"{sub.value.id}[...] = ...", sub.value  # type: ignore[attr-defined]
        owner = _owner(ctx, var, use)
        if owner is None and project_import(ctx, var) is not None:
            self._imported(node, use, ctx)
            return
        if owner == "argument" and isinstance(node, ast.Call) and not _known_container(ctx, var) \
                and _state_propagated(ctx, var):
            return  # `metrics.update(loss=l)` in an `@nnx.jit` step: nnx merges the object's state back to the caller
        if owner and isinstance(node, ast.Call) and node.func.attr not in _LIST_ONLY:  # type: ignore[attr-defined]
            if not _known_container(ctx, var) and not (_dict_update(node) and not _typed_other(ctx, var)):  # type: ignore[arg-type]
                return  # `.update`/`.add`/`.pop` on an object of unknown type: could be anything
        if owner and not trace_time_effect_expected(ctx, var):
            if not any(ctx.is_traced(v) or holds_traced(ctx, v) for v in _stored(node)):
                # Only Python values go in (a name counter, a scope stack of strings, `.pop()`): no tracer leaks;
                # what remains true is that it runs while tracing, not on every call, which is often the point.
                msg = (f"`{expr}` mutates {owner} `{var}` inside traced function `{ctx.frame.name}`: it runs while "
                       f"tracing, not on every call (it stores no traced value: trace-time bookkeeping, if meant)")
                ctx.report(self, node, msg, severity="info", expr=expr, owner=owner, var=var,
                           function=ctx.frame.name)
                return
            returned = owner == "argument" and _returns(ctx.frame.node, var)
            if returned and facts.rebuilt_argument(ctx.frame, var):
                return  # the trace's own copy, handed back: the caller gets the update through the return value
            if returned:
                msg = (f"`{expr}` mutates argument `{var}` inside traced function `{ctx.frame.name}`, which returns it: "
                       f"the update reaches callers through the return value; a tracer outlives the trace only if a "
                       f"caller passes a container that outlives it (a global, an attribute)")
                ctx.report(self, node, msg, severity="info", expr=expr, owner=owner, var=var, function=ctx.frame.name)
                return
            if owner == "argument" and facts.rebuilt_argument(ctx.frame, var):
                msg = (f"`{expr}` mutates argument `{var}` of jitted function `{ctx.frame.name}`: jit rebuilt it from "
                       f"the caller's leaves for this trace, so the caller's `{var}` never sees the change (no tracer "
                       f"leaks out of the copy); return the values instead of mutating the argument")
                ctx.report(self, node, msg, expr=expr, owner=owner, var=var, function=ctx.frame.name)
                return
            ctx.report(self, node, expr=expr, owner=owner, var=var, function=ctx.frame.name)


    def _imported(self, node: ast.AST, receiver: ast.AST, ctx: Context) -> None:
        """Another module of the project's container (``from .state import CACHE``, ``state.CACHE``, ``from . import
        state``) given a traced value: it lives as long as the process, so the tracer outlives the trace. Its type
        is not seen here: lists' and dicts' own forms only (``.append``/``.extend``/``.insert``, ``d.update({...})``,
        ``d[k] = v``), and only with a traced value, not whatever a trace-time registry records."""
        if isinstance(receiver, ast.Name) and ctx.is_module_global(receiver.id):
            name = project_import(ctx, receiver.id)
        elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and ctx.is_module_global(
                receiver.value.id) and project_import(ctx, receiver.value.id) is not None:
            name = f"{project_import(ctx, receiver.value.id)}.{receiver.attr}"
        else:
            return
        if name is None:
            return
        if isinstance(node, ast.Call):
            parent = ctx.parents[-1] if ctx.parents else None
            if not isinstance(parent, ast.Expr) or not (node.func.attr in _LIST_ONLY or _dict_update(node)):  # type: ignore[attr-defined]
                return
            expr = f"{ctx.segment(receiver)}.{node.func.attr}(...)"  # type: ignore[attr-defined]
        else:
            expr = f"{ctx.segment(receiver)}[...] = ..."  # type: ignore[attr-defined]
        if not any(ctx.is_traced(v) or holds_traced(ctx, v) for v in _stored(node)):
            return
        var = ctx.segment(receiver)
        if not trace_time_effect_expected(ctx, var.split(".")[-1]):
            ctx.report(self, node, expr=expr, owner="another module's", var=name.lstrip("."), function=ctx.frame.name)


def _stored(node: ast.AST) -> list[ast.AST]:
    """The values a mutation puts into its container: a call's arguments (``.append(v)``, ``.update(k=v)``), an
    item assignment's value (``d[k] = v``, ``d[k] += 1``); none for ``.pop()``/``.clear()``."""
    if isinstance(node, ast.Call):
        return [*node.args, *(k.value for k in node.keywords)]
    value = getattr(node, "value", None)
    return [value] if value is not None else []


def _closure_cache(ctx: Context, var: str, node: ast.AST) -> bool:
    """``cache[k] = v`` with ``v`` traced and ``cache`` a dict or list an enclosing function that is not traced
    built (``cache = {}``): a closure's memo, not a Pallas Ref (a parameter of the kernel)."""
    if not ctx.is_traced(node.value) or var in ctx.frame.bound or var in ctx.frame.params:  # type: ignore[attr-defined]
        return False
    for outer in reversed(ctx.frames[1:-1]):
        if var in outer.bound or var in outer.params:
            return not outer.traced and var in outer.containers and var not in outer.params
    return False


def project_import(ctx: Context, name: str) -> str | None:
    """Where a module-level import of this project binds ``name`` (``.state.CACHE``, ``pkg.state``): a relative
    import, or one from the file's own top-level package; None for every other name (a library's object)."""
    return ctx.memo(_project_imports).get(name)


def _project_imports(ctx: Context) -> dict[str, str]:
    names: dict[str, str] = {}
    top = _top_package(ctx.filename)
    for s in ctx.tree.body:
        if isinstance(s, ast.ImportFrom) and (s.level or (top and (s.module or "").split(".")[0] == top)):
            for a in s.names:
                if a.name != "*":
                    names[a.asname or a.name] = "." * s.level + ".".join(filter(None, (s.module, a.name)))
        elif isinstance(s, ast.Import) and top:
            for a in s.names:
                if a.name.split(".")[0] == top:
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else top
    return names


def _top_package(filename: str) -> str:
    d, top = os.path.dirname(os.path.abspath(filename)), ""
    while os.path.isfile(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
        top, d = os.path.basename(d), os.path.dirname(d)
    return top


def _dict_update(call: ast.Call) -> bool:
    """``d.update({"k": v})`` / ``d.update(k=v)`` with its result unused: ``dict.update``'s own forms (a dict
    display or keywords alone), whatever ``d``'s type is not known to be (an optimizer's ``update`` takes
    arrays and returns its results)."""
    if call.func.attr != "update":  # type: ignore[attr-defined]
        return False
    if call.keywords and not call.args:
        return all(k.arg is not None for k in call.keywords)
    return len(call.args) == 1 and not call.keywords and isinstance(call.args[0], (ast.Dict, ast.DictComp))


def _state_propagated(ctx: Context, var: str) -> bool:
    """Is ``var`` a parameter of a function a transform hands graph nodes live and merges their state back
    from (``flax.nnx.jit``: ``families.PROPAGATES_ARGUMENT_STATE``)?"""
    for f in reversed(ctx.frames[1:]):
        if var in f.params:
            return f.spec is not None and f.spec.wrapper in PROPAGATES_ARGUMENT_STATE
        if var in f.bound:
            return False
    return False


def _typed_other(ctx: Context, var: str) -> bool:
    """Is ``var`` a parameter annotated with a type that is no dict (``metrics: nnx.MultiMetric``)?"""
    for f in reversed(ctx.frames[1:]):
        if var in f.params and isinstance(f.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = f.node.args
            p = next((p for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.arg == var), None)
            ann = getattr(p, "annotation", None)
            return ann is not None and not any(w in ast.unparse(ann) for w in ("dict", "Dict", "Mapping"))
        if var in f.bound:
            return False
    return False


_LIST_ONLY = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})
_SHAPE_ATTRS = frozenset({"shape", "ndim", "dtype", "size"})


def _static_shapes(ctx: Context, node: ast.AST) -> bool:
    """Is ``node`` built from shape queries (``[jnp.shape(x) for x in leaves]``, ``x.shape``), not a tracer?"""
    if ctx.is_traced(node):
        return False
    return any((isinstance(n, ast.Attribute) and n.attr in _SHAPE_ATTRS) or (
        isinstance(n, ast.Call) and (ctx.resolve(n.func) or "") in STATIC_CALLS) for n in ast.walk(node))


def _known_container(ctx: Context, var: str) -> bool:
    for f in reversed(ctx.frames[1:]):
        if var in f.bound or var in f.params:
            return var in f.containers
    return var in ctx.info.module_mutables


_FRESH = frozenset({"list", "dict", "set", "collections.deque", "collections.OrderedDict", "collections.defaultdict"})


def _returns(fn: ast.AST | None, var: str) -> bool:
    """Does ``fn`` hand ``var`` back: ``return var``, or ``var`` an element of a returned tuple, list or dict display
    (``return state, y``; ``return {"s": state}``)? Nested functions' returns are theirs."""
    def holds(v: ast.AST | None) -> bool:
        if isinstance(v, ast.Name):
            return v.id == var
        if isinstance(v, (ast.Tuple, ast.List)):
            return any(holds(e) for e in v.elts)
        return isinstance(v, ast.Dict) and any(holds(e) for e in v.values)
    return fn is not None and any(isinstance(n, ast.Return) and holds(n.value) for n in own_nodes(*getattr(fn, "body", [])))


def made_fresh(ctx: Context, value: ast.AST | None) -> bool:
    """Is ``value`` a new container made right there (``[]``, ``{}``, ``list(xs)``), not one that outlives the call?"""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and (ctx.resolve(value.func) or "") in _FRESH


def _owner(ctx: Context, var: str, use: ast.AST) -> str | None:
    f = ctx.frame
    if var in f.params and var in f.bound and f.node is not None:
        reaching = reaching_values(f.node, ctx.parents, use, var)
        if reaching is not None and all(made_fresh(ctx, v) for v in reaching):
            return None  # `acc = []` before the use on every path: a fresh local list, not the argument
    if var in f.params and var not in f.bound and f.spec is not None and var in f.spec.fresh:
        return None  # every traced caller made it in its own trace (`acc = []; helper(x, acc)`): it dies with it
    if var in f.params:
        a = f.node.args if isinstance(f.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
        fresh = a is not None and any(p is not None and p.arg == var for p in (a.vararg, a.kwarg))
        return "argument" if var not in ("self", "cls") and not fresh else None
    if var in f.bound:
        return None
    for outer in reversed(ctx.frames[1:-1]):
        if var in outer.bound or var in outer.params:
            if not outer.traced:
                return "enclosing-scope variable"
            # A body traced separately (scan, vmap, cond branch) leaks its tracers into the outer trace.
            wrapper = f.spec.wrapper if f.spec else ""
            return "enclosing-scope variable" if wrapper in BODY_ARGS or (wrapper in TRACES and wrapper not in JIT_LIKE) else None
    if var in ctx.info.module_mutables:
        return "module-global"
    return None
