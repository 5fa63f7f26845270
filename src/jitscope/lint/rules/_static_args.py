"""What reaches a static argument: the jitted callee of a call, and the values its static parameters get.

jit hashes its static arguments to key its cache (``static_argnums``/``static_argnames``): a value
that cannot be hashed raises, and one that hashes by identity misses the cache on every new object.
JS602 and JS604 ask this module, for a call, which jitted function it calls (a decorated or wrapped
name, ``self.method`` of a decorated method, ``self.step`` set to ``jax.jit(self._step, ...)``, an inline
``jax.jit(f, ...)(...)``), which arguments land on static parameters, and what each may be: the
literal itself, or every value a name or attribute is bound to (in the function, at module level,
in the class's methods for ``self.x``/``obj.x``), so a list bound to ``axes`` three lines up, a
module-level config dict or an instance attribute set in ``__init__`` is seen as well as a literal.
"""

from __future__ import annotations

import ast

from .. import wrappers
from ..astutil import walk_in_order
from ..context import Context
from ..returns import returned_values
from ..scope import JIT_LIKE, StaticSpec, decorator_spec, spec_from_call
from ._reaching import reaching_values
from ._scan import own_statements, scope_bindings

Def = ast.FunctionDef | ast.AsyncFunctionDef
ARRAY_FACTORY_HEADS = ("numpy.", "jax.numpy.", "jax.random.")
_ARRAY_FACTORIES = frozenset({"array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
                              "zeros_like", "ones_like", "full_like", "normal", "uniform",
                              # jax.random: a PRNG key (raw uint32 or typed) is an array too
                              "PRNGKey", "key", "split", "fold_in", "bernoulli", "randint", "choice",
                              "permutation", "categorical", "truncated_normal"})


def jitted_target(ctx: Context, call: ast.Call) -> tuple[Def, StaticSpec, str, int] | None:
    """(the jitted def, its static spec, its name as called, how ``self`` is bound) of ``call``, or None.

    The last item is 0 for a plain function, 1 for a decorated method called on ``self`` (``self`` is
    position 0 of ``static_argnums``), 2 for ``jax.jit(self._m)`` (the bound method: its
    ``static_argnums`` count from the parameter after ``self``)."""
    func = call.func
    info = ctx.info
    found = info.module_jit(func.id) if isinstance(func, ast.Name) else None
    if found is not None and ctx._local_frame(func.id) is None:  # type: ignore[union-attr]
        def_name, spec = found
        fn = info.defs.get(def_name)
        return (fn, spec, func.id, 0) if fn is not None else None
    if isinstance(func, ast.Name) and len(ctx.frames) > 1 and func.id in ctx.frame.bound \
            and func.id not in ctx.frame.params:
        return _local_jit(ctx, func)  # `step = jax.jit(f, static_argnames="t")` in this function
    if isinstance(func, ast.Name) and ctx._local_frame(func.id) is None and func.id not in info.defs:
        made = _name_values(ctx, func.id)  # `step = maybe_jit(f, static_argnums=1)` at module level
        if len(made) == 1 and isinstance(made[0], ast.Call):
            return _made_by_wrapper(ctx, made[0], func.id)
    if isinstance(func, ast.Call):  # `maybe_jit(f, static_argnums=1)(x, n)`: a project function returning a jit
        made = _made_by_wrapper(ctx, func)
        if made is not None:
            return made
    if isinstance(func, ast.Call) and func.args and isinstance(func.args[0], ast.Name) \
            and ctx.resolve(func.func) in JIT_LIKE:  # jax.jit(f, static_argnums=1)(x, [1, 2])
        fn = info.defs.get(func.args[0].id)
        q = ctx.resolve(func.func) or ""
        return (fn, spec_from_call(info, func, q), func.args[0].id, 0) if fn is not None else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = _enclosing_class(ctx)
        if cls is None:
            return None
        method = _method(cls, func.attr)
        if method is not None:  # `self.m(...)` of `@partial(jax.jit, static_argnums=(1,)) def m(self, ...)`
            for dec in method.decorator_list:
                spec = decorator_spec(info, dec)
                if spec is not None and spec.wrapper in JIT_LIKE:  # a staticmethod binds nothing
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)
                    return method, spec, f"self.{func.attr}", 0 if static else 1
            return None
        for _, value in _self_assignments(ctx, cls, func.attr):  # `self.step = jax.jit(self._step, ...)`
            if isinstance(value, ast.Call) and value.args and ctx.resolve(value.func) in JIT_LIKE:
                wrapped = value.args[0]
                if isinstance(wrapped, ast.Attribute) and isinstance(wrapped.value, ast.Name) \
                        and wrapped.value.id == "self":
                    inner = _method(cls, wrapped.attr)
                    if inner is not None:
                        return inner, spec_from_call(info, value, ctx.resolve(value.func) or ""), f"self.{func.attr}", \
                            2
    return None


def _made_by_wrapper(ctx: Context, made: ast.Call, name: str | None = None) -> tuple[Def, StaticSpec, str, int] | None:
    """The jitted def and spec of ``maybe_jit(f, static_argnums=1)``: a summarized project function that returns
    a jit of its parameter (``lint/wrappers.py``), given a module-level or local def."""
    summary = wrappers.summary_for_call(ctx, made)
    if summary is None or summary.returns is None:
        return None
    index, jit, spec, forwards, sure, where = summary.returns
    if index >= len(made.args) or not isinstance(made.args[index], ast.Name):
        return None
    if forwards:
        spec = spec_from_call(ctx.info, made, jit)
    fn = _def_named(ctx, made.args[index].id)
    if fn is None:
        return None
    how = f"`{summary.function}` returns `{jit}` of `{fn.name}` ({where}){'' if sure else ' on some calls'}"
    ctx.table(_made_by_wrapper)["now"] = (how, sure)  # read by static_arguments right after jitted_target
    return fn, spec, name or fn.name, 0


def _def_named(ctx: Context, name: str) -> Def | None:
    frame = ctx._local_frame(name)
    if frame is not None and frame.node is not None:
        defs = [s for s, _ in own_statements(frame.node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name == name]
        return defs[0] if len(defs) == 1 else None
    return ctx.info.defs.get(name) if frame is None else None


def _local_jit(ctx: Context, func: ast.Name) -> tuple[Def, StaticSpec, str, int] | None:
    """A name of this function bound (on every binding reaching the call) to one jit of one function:
    ``jax.jit(f, ...)`` or ``partial(jax.jit, ...)(f)`` of a module-level or local def ``f``."""
    scope = ctx.frame.node
    if not wrappers.jits_in(ctx, scope) and not wrappers.returns_jit(ctx):
        return None  # no jit in this function (nor a project function returning one): bound to something else
    entries = scope_bindings(ctx, scope).get(func.id, ())
    defs = [s for s, _ in own_statements(scope) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name == func.id]
    if len(defs) == 1 and len(entries) == 1 and entries[0][0] is defs[0]:  # `@partial(jax.jit, static_argnums=(1,)) def sample(...)` in this function
        for dec in defs[0].decorator_list:
            spec = decorator_spec(ctx.info, dec)
            if spec is not None and spec.wrapper in JIT_LIKE:
                return defs[0], spec, func.id, 0
        return None
    if len(entries) == 1 and isinstance(entries[0][1], ast.Call):
        through = _made_by_wrapper(ctx, entries[0][1], func.id)  # `step = maybe_jit(f, static_argnums=1)`
        if through is not None:
            return through
    if not any(value is not None and wrappers._jitting(ctx, value) is not None for _, value, _, _ in entries):
        return None  # none of its bindings is a jit: no need for the precise reaching ones
    values = values_of(ctx, func)
    made = [wrappers._jitting(ctx, v) if v is not None else None for v in values]
    if not made or any(m is None for m in made) or len({(m[1].id if isinstance(m[1], ast.Name) else None, m[2].argnums,
                                                         m[2].argnames) for m in made}) != 1:  # type: ignore[index]
        return None
    _, wrapped, spec, _ = made[0]  # type: ignore[misc]
    held = _partial_held(ctx, wrapped, scope_bindings(ctx, scope))
    if held is not None:  # `jax.jit(partial(f, loss), static_argnames=...)`: jit sees the partial's signature
        fn = _def_named(ctx, held.args[0].id)  # type: ignore[attr-defined]
        return (_signature_of_partial(fn, held), spec, func.id, 0) if fn is not None else None
    if not isinstance(wrapped, ast.Name):
        return None
    fn = None
    frame = ctx._local_frame(wrapped.id)
    if frame is ctx.frame and frame.node is not None:
        defs = [s for s, _ in own_statements(frame.node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name == wrapped.id]
        fn = defs[0] if len(defs) == 1 else None
    elif frame is None:
        fn = ctx.info.defs.get(wrapped.id)
    return (fn, spec, func.id, 0) if fn is not None else None


def _partial_held(ctx: Context, wrapped: ast.expr, bindings: dict) -> ast.Call | None:
    """The ``partial(f, ...)`` a jit wraps: written in the jit's argument, or the one partial the jitted local
    name is bound to in the function (``step = partial(f, loss); step = partial(nnx.jit, ...)(step)``)."""
    if isinstance(wrapped, ast.Name):
        held = [v for _, v, _, _ in bindings.get(wrapped.id, ()) if isinstance(v, ast.Call)
                and wrappers._jitting(ctx, v) is None]
        wrapped = held[0] if len(held) == 1 else wrapped
    if isinstance(wrapped, ast.Call) and (ctx.resolve(wrapped.func) or "").endswith("partial") and wrapped.args \
            and isinstance(wrapped.args[0], ast.Name) and not any(isinstance(a, ast.Starred) for a in wrapped.args) \
            and all(k.arg for k in wrapped.keywords):
        return wrapped
    return None


def _signature_of_partial(fn: Def, held: ast.Call) -> Def:
    """A def with the signature ``inspect.signature`` gives ``partial(fn, a, k=v)``: the bound leading positional
    parameters gone, a bound keyword keeping its parameter (a call may pass it again by keyword). jit reads
    ``static_argnums``/``static_argnames`` against this signature; a name only ``**kwargs`` takes is static
    only when passed by keyword (a positional value landing in ``*args`` is traced: tested under real jax)."""
    a = fn.args
    n = len(held.args) - 1
    positional = (a.posonlyargs + a.args)[n:]
    defaults = a.defaults[max(0, len(a.defaults) - len(positional)):]
    args = ast.arguments(posonlyargs=[], args=positional, vararg=a.vararg, kwonlyargs=a.kwonlyargs,
                         kw_defaults=a.kw_defaults, kwarg=a.kwarg, defaults=defaults)
    return ast.FunctionDef(name=fn.name, args=args, body=fn.body, decorator_list=[], returns=None, type_params=[],
                           lineno=fn.lineno, col_offset=fn.col_offset, end_lineno=fn.end_lineno,
                           end_col_offset=fn.end_col_offset)


def static_arguments(ctx: Context, call: ast.Call, jitted: bool = False
                     ) -> tuple[str, list[tuple[str, ast.expr]]] | None:
    """For a call of a jitted function whose static parameters are known: (its name, ``static_passed``);
    None when the callee is no known jit, or its static arguments are computed at run time (which ones is
    unknown). A call of a project function that hands parameters to a jit (``lint/wrappers.py``) counts
    too: its parameters that reach a static position (and, with ``jitted``, those it jits itself); how
    each was established is ``via(ctx, value)``.

    Four rules (JS208, JS602, JS604, JS605) ask this of every call, one after the other: the answer for the
    call being checked is kept while the walk stays there (the same call node, function frame and depth:
    what the answer depends on; a later walk of the same function has a new frame). Nodes, not ids, key it."""
    frame, depth = ctx.frames[-1], len(ctx.parents)
    memo = ctx.table(static_arguments)
    key = (call, jitted)
    last = memo.get(key)
    if last is not None and last[0] is frame and last[1] == depth:
        return last[2]
    resolved = memo.get(call)  # the jitted target does not depend on `jitted`: resolved once for both
    if resolved is None or resolved[0] is not frame or resolved[1] != depth:
        made = ctx.table(_made_by_wrapper)
        made["now"] = None
        target = jitted_target(ctx, call)
        resolved = memo[call] = (frame, depth, target, made["now"])
    found = _static_arguments(ctx, call, jitted, resolved[2], resolved[3])
    memo[key] = (frame, depth, found)
    return found


def _static_arguments(ctx: Context, call: ast.Call, jitted: bool, target: tuple[Def, StaticSpec, str, int] | None,
                      made: tuple[str, bool] | None) -> tuple[str, list[tuple[str, ast.expr]]] | None:
    """``made``: how the jit came from a project function returning it (``_made_by_wrapper``), or None."""
    if target is None:
        summary = wrappers.summary_for_call(ctx, call)
        if summary is None:
            return None
        vias = ctx.table(via)
        passed = []
        for p, a in wrappers.passed_through(summary, call):
            if p.kind == "static" or jitted:
                vias[a] = p
                passed.append((p.name, a))
        return (summary.function, passed) if passed else None
    fn, spec, function, bound = target
    if spec.traced_argnums == () and not spec.argnums and not spec.argnames:
        return None
    passed = static_passed(call, fn, spec, bound)
    if spec.hashed_argnums is not None:  # vmap/pmap: an unmapped argument (`in_axes=None`) is never hashed
        positional = [p.arg for p in fn.args.posonlyargs + fn.args.args]
        hashed = {positional[i] for i in spec.hashed_argnums if -len(positional) <= i < len(positional)}
        passed = [(p, a) for p, a in passed if p in hashed]
    if made is not None:  # through a project function returning the jit: say so, and how sure
        vias = ctx.table(via)
        for param, a in passed:
            vias[a] = wrappers.KeyParam(param, None, "static", made[0], made[1])
    return function, passed


def declared_at(ctx: Context, call: ast.Call, param: str) -> ast.expr | None:
    """Where ``param`` is declared static for the jit ``call`` calls directly: the element of the decorator's
    ``static_argnums``/``static_argnames`` (a constant, or one in a tuple/list) that names it, or None (a
    wrapper, a ``jax.jit(f, ...)`` call elsewhere, a computed option). Asked right after ``static_arguments``."""
    resolved = ctx.table(static_arguments).get(call)
    if resolved is None or resolved[2] is None or resolved[3] is not None:
        return None
    fn, _, _, bound = resolved[2]
    if bound == 2 or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    positional = [p.arg for p in fn.args.posonlyargs + fn.args.args]
    for dec in fn.decorator_list:
        if not isinstance(dec, ast.Call):
            continue
        spec = decorator_spec(ctx.info, dec)
        if spec is None or spec.wrapper not in JIT_LIKE:
            continue
        for k in dec.keywords:
            elts = k.value.elts if isinstance(k.value, (ast.Tuple, ast.List)) else [k.value]
            for e in elts:
                if not isinstance(e, ast.Constant):
                    continue
                if k.arg == "static_argnames" and e.value == param:
                    return e
                if k.arg == "static_argnums" and type(e.value) is int and -len(positional) <= e.value < len(
                        positional) and positional[e.value] == param:
                    return e
    return None


def filtered(ctx: Context, call: ast.Call) -> bool:
    """Does ``call`` call an equinox-style filtered jit (``StaticSpec.filter``: what is static is decided by each
    value's type, so an array given for a parameter it would keep static is traced instead)? Asked right after
    ``static_arguments``."""
    resolved = ctx.table(static_arguments).get(call)
    return resolved is not None and resolved[2] is not None and resolved[2][1].filter


def report_at_declaration(rule, ctx: Context, call: ast.Call, name: str, message: str, /, **details: object) -> None:
    """Report ``message`` also where parameter ``name`` is declared static (``declared_at``), where its fix goes
    (drop it from the static arguments), once per rule and declared position, whichever call is seen first."""
    decl = declared_at(ctx, call, name)
    done = ctx.table(report_at_declaration)
    if decl is None or (rule.code, decl) in done:
        return
    done[(rule.code, decl)] = True
    ctx.report(rule, decl, message, **details)


def via(ctx: Context, value: ast.expr) -> str:
    """How ``value``'s parameter was found to reach a jit (" (static because ...)"), "" for a direct jitted call."""
    p = ctx.table(via).get(value)
    if p is None:
        return ""
    return f" (`{p.name}` is {'jitted' if p.kind == 'jitted' else 'static'}: {p.via})"


def message_via(rule, ctx: Context, node: ast.expr, /, **details: object) -> str | None:
    """The rule's message with how ``node`` reaches a jit appended, or None (the rule's own message) for a
    direct jitted call."""
    how = via(ctx, node)
    return rule.message.format(**details) + how if how else None


def jitted_param(ctx: Context, value: ast.expr) -> bool:
    """Is ``value`` passed for a wrapper parameter that is jitted itself (not a static argument)?"""
    p = ctx.table(via).get(value)
    return p is not None and p.kind == "jitted"


def cost_severity(ctx: Context, value: ast.expr) -> tuple[str | None, str]:
    """(severity override, note) for a recompile found through a wrapper or another module's jit: the cost is
    paid only where the calling code runs eagerly, and a library function's callers may all jit it (a jit
    called while tracing only re-traces, once per trace of its caller). At module level, or in a loop (a
    driver loop calling jitted code is eager in practice), the rule's own severity; in a function's
    straight-line code, an ``info`` saying so."""
    if not via(ctx, value) or len(ctx.frames) == 1 or ctx.in_loop:
        return None, ""
    return "info", f" (when `{ctx.frame.name}` runs outside jit; under a jit it is traced once per trace instead)"


def certain(ctx: Context, value: ast.expr) -> bool:
    """Does ``value`` reach a static argument on every call (a direct jitted call, or a wrapper that jits it
    unconditionally)? An ``error`` about it needs that; otherwise a warning."""
    p = ctx.table(via).get(value)
    return p is None or p.certain


def static_passed(call: ast.Call, fn: Def, spec: StaticSpec, bound: int) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) for each argument of ``call`` that lands on a static parameter of ``fn``.

    A method called on ``self`` (``bound`` 1 or 2) passes its first argument to the parameter after
    ``self``; a jit of the bound method (``bound`` 2) counts ``static_argnums`` from there too."""
    positional = [p.arg for p in fn.args.posonlyargs + fn.args.args]
    offset = 1 if bound and positional else 0  # the instance goes to the first parameter, whatever its name
    static = set(spec.argnames) | {positional[offset:][i] for i in spec.argnums
                                   if -len(positional[offset:]) <= i < len(positional[offset:])} if bound == 2 \
        else spec.static_params(fn)
    out = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        if i + offset < len(positional) and positional[i + offset] in static:
            out.append((positional[i + offset], a))
    out += [(k.arg, k.value) for k in call.keywords if k.arg and k.arg in static]
    return out


def values_of(ctx: Context, expr: ast.expr) -> list[ast.expr | None]:
    """Every value ``expr`` may hold at the call: itself, or the right-hand sides of the bindings of a
    name (in the current function, or at module level) or of an attribute (``self.x``/``obj.x`` set in the
    class's methods); ``None`` stands for a binding whose value is not known (a loop target, ``+=``, a
    parameter)."""
    if isinstance(expr, ast.Name):
        frame = ctx._local_frame(expr.id)
        if frame is not None and frame is ctx.frame and frame.node is not None:
            reaching = reaching_values(frame.node, ctx.parents, expr, expr.id)
            if reaching is not None:  # `shape = tuple(shape)` before the call: the earlier list no longer reaches
                return reaching
        return _name_values(ctx, expr.id)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        cls = None
        if expr.value.id == "self":
            cls = _enclosing_class(ctx)
        else:
            ctors = [v for v in _name_values(ctx, expr.value.id) if isinstance(v, ast.Call)]
            if ctors and isinstance(ctors[0].func, ast.Name):
                cls = _module_class(ctx, ctors[0].func.id)
        if cls is not None:
            found = [value for _, value in _self_assignments(ctx, cls, expr.attr)]
            return found or [None]
        return [None]
    return [expr]


def _name_values(ctx: Context, name: str) -> list[ast.expr | None]:
    frame = ctx._local_frame(name)
    if frame is not None and name in frame.params and name not in frame.bound:
        return [None]  # a parameter: its callers decide
    scope = frame.node if frame is not None else ctx.tree
    if frame is None and name in ctx.info.reassigned_in_functions:
        return [None]
    entries = scope_bindings(ctx, scope).get(name, [])
    if not entries:
        return [None]
    return [value if whole and value is not None else None for _, value, whole, _ in entries]


def unhashable(ctx: Context, value: ast.expr | None, depth: int = 0) -> str | None:
    """Why ``value`` cannot be hashed (``"a list"``, ``"a NumPy array"``, ``"a JAX array"``, ``"a dict
    `make_config` returns"``: every ``return`` of a module function, ``lint/returns.py``), or None."""
    if isinstance(value, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "a dict"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "a set"
    if isinstance(value, ast.Call):
        q = ctx.resolve(value.func) or ""
        if q in ("list", "dict", "set"):
            return f"a {q}"
        head, _, fn = q.rpartition(".")
        if fn in _ARRAY_FACTORIES and (head + ".").startswith(ARRAY_FACTORY_HEADS):
            return "a NumPy array" if head == "numpy" else "a JAX array"
        if isinstance(value.func, ast.Name) and value.func.id in ctx.info.jitted_callables:
            return "the array a jitted call returns"
        if isinstance(value.func, ast.Name) and ctx._local_frame(value.func.id) is None and depth < 3:
            # `run(x, make_config())`: what the module's function returns on every `return`
            returned = returned_values(ctx, value.func.id)
            kinds = {unhashable(ctx, v, depth + 1) for v in returned or ()}
            if returned and len(kinds) == 1 and None not in kinds:
                return f"{kinds.pop()} `{value.func.id}` returns"
    return None


def _enclosing_class(ctx: Context) -> ast.ClassDef | None:
    for p in reversed(ctx.parents):
        if isinstance(p, ast.ClassDef):
            return p
    return None


def _module_class(ctx: Context, name: str) -> ast.ClassDef | None:
    hits = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and s.name == name]
    return hits[0] if len(hits) == 1 else None


def _method(cls: ast.ClassDef, name: str) -> Def | None:
    for s in cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
            return s
    return None


def _self_assignments(ctx: Context, cls: ast.ClassDef, attr: str) -> list[tuple[ast.AST, ast.expr | None]]:
    """``self.<attr> = value`` in the class's methods (a value of ``None`` when not a plain assignment).

    The class is walked once per file, for all its attributes (each ``self.x(...)`` call asked again: a
    third of the whole lint's time on jax+flax+optax)."""
    index = ctx.table(_self_assignments)  # class node -> attr -> assignments
    by_attr = index.get(cls)
    if by_attr is None:
        by_attr = index[cls] = _index_self_assignments(cls)
    return by_attr.get(attr, [])


def _index_self_assignments(cls: ast.ClassDef) -> dict[str, list[tuple[ast.AST, ast.expr | None]]]:
    out: dict[str, list[tuple[ast.AST, ast.expr | None]]] = {}
    for s in cls.body:
        if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in walk_in_order(s):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    for e in ([t] if not isinstance(t, (ast.Tuple, ast.List)) else t.elts):
                        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
                            whole = isinstance(n, ast.Assign) and e is t
                            out.setdefault(e.attr, []).append((e, n.value if whole else None))
    return out
