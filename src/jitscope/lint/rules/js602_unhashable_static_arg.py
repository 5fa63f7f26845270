"""JS602 unhashable-static-arg."""

from __future__ import annotations

import ast

from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, decorator_spec
from ._static_args import certain, message_via, report_at_declaration, static_arguments, unhashable, values_of, via
from ._util import short

_UNHASHABLE = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_KIND = {ast.List: "list", ast.Dict: "dict", ast.Set: "set", ast.ListComp: "list", ast.DictComp: "dict",
         ast.SetComp: "set"}


class UnhashableStaticArg(Rule):
    """A list, dict or set passed for a static argument of a jitted function.

    ## What it does
    Flags call sites of a jitted function (decorated, or wrapped as ``g = jax.jit(f, ...)``
    in the same module) that pass a list/dict/set literal or comprehension for a parameter
    named in ``static_argnums``/``static_argnames``, and static parameters whose default
    value is a list, dict or set. A project function passing its parameter on to a jit's static
    position (``lint/wrappers.py``, across the linted modules) counts as a jitted call: an error only
    when it does so on every call, with no fix (the wrapper may use the value otherwise too). So does a
    helper that jits a function with the ``static_argnums`` its caller names and calls it on its own
    ``*args`` (``check_jit(f, key, 3, static_argnums=(0,))``): the arguments at those positions are static.
    A value is followed through data flow: a name or attribute bound to a list, dict, set or array, and a
    call of a module function that returns one on every ``return`` (``run(x, make_config())``). An array's
    fix is at the declaration (drop the position from ``static_argnums``), so it is also reported at the
    decorator's ``static_argnums``/``static_argnames`` element, once per position. A parameter passed on
    unchanged to a static position whose *default* is a list, dict or set (``def scale(x, opts={}):
    return _scale(x, opts)``) raises whenever a caller leaves it out: a warning at the default (where
    the fix goes), the call in ``details.related``.

    ## Why is this bad?
    jit keys its cache on the static values, so they must be hashable: passing a list
    raises ``ValueError: Non-hashable static arguments are not supported``.

    ## Example
    ```python
    @partial(jax.jit, static_argnames="axes")
    def total(x, axes):
        return x.sum(axis=axes)

    total(x, axes=[0, 1])
    ```

    ## Use instead
    ```python
    total(x, axes=(0, 1))
    ```

    ## Fix safety
    Safe at call sites, for a list or set whose elements are all constants (``[0, 1]`` ->
    ``(0, 1)``, ``{"a"}`` -> ``frozenset({"a"})``): jit hashes the static arguments it is
    given before it calls the function, so that call can never have run the function; the
    tuple of the same constants only turns a call that always raised into one that runs. The
    one behaviour it changes is a program that catches that ``ValueError`` on purpose. Dicts,
    comprehensions and lists holding names or calls get no fix. A list *default* works as
    is (jit does not hash a default that was not passed), so it is only a warning, and its
    fix is unsafe: the body may rely on list operations (``axes + [1]``).
    """

    code = "JS602"
    name = "unhashable-static-arg"
    message = "{kind} passed for static argument `{param}` of `{function}`: static arguments must be hashable; use a tuple"
    severity = "error"
    confidence = "certain"
    fix = "safe"
    nodes = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._defaults(node, ctx)
            return
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call)
        if found is None:
            return
        function, passed = found
        for param, value in passed:
            if isinstance(value, _UNHASHABLE):
                details = dict(kind=f"a {_KIND[type(value)]}", param=param, function=function)
                direct = not via(ctx, value)  # through a wrapper: it may use the value otherwise too, no fix
                ctx.report(self, value, message_via(self, ctx, value, **details),
                           fix=self._fix(value, ctx) if direct else None,
                           severity=None if certain(ctx, value) else "warning", **details)
                continue
            if self._forwarded_default(ctx, call, param, function, value):
                continue
            # Through data flow: a name or attribute bound to a list, dict, set or array (every binding: an
            # error; some: a warning), or an array made at the call.
            kinds = [unhashable(ctx, v) for v in values_of(ctx, value)]
            bad = [k for k in kinds if k]
            if not bad:
                continue
            what = bad[0]
            shown = f"`{short(ctx, value)}` ({what})" if not isinstance(value, ast.Call) else what
            advice = ("make it a traced argument (drop it from the static arguments)" if "array" in what
                      else "use a hashable value (a tuple of its items, a frozen dataclass)" if "dict" in what
                      else "use a tuple")
            msg = (f"{shown} passed for static argument `{param}` of `{function}`: static arguments must be "
                   f"hashable; {advice}")
            if len(bad) < len(kinds):
                msg += " (on some of the ways it is bound)"
            msg += via(ctx, value)
            sure = len(bad) == len(kinds) and certain(ctx, value)
            ctx.report(self, value, msg, severity="error" if sure else "warning",
                       kind=what, param=param, function=function)
            if "array" in what:
                self._at_declaration(ctx, call, param, function, what, sure)

    def _forwarded_default(self, ctx: Context, call: ast.Call, param: str, function: str, value: ast.AST) -> bool:
        """``def solve(x, opts={}): return _solve(x, opts)`` with ``opts`` static in ``_solve``: the parameter's
        unhashable default reaches the static position whenever a caller leaves it out, and JAX raises
        'Non-hashable static arguments' at the call. Reported at the default (where the fix goes), the call
        related (``details.related``). The caller may always pass a hashable value: a warning."""
        frame = ctx.frame
        fn = frame.node
        if type(value) is not ast.Name or type(fn) not in (ast.FunctionDef, ast.AsyncFunctionDef):
            return False
        name = value.id  # type: ignore[attr-defined]
        if name not in frame.params or name in frame.bound:
            return False
        a = fn.args  # type: ignore[union-attr]
        positional = a.posonlyargs + a.args
        pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=False))
        pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None]
        default = next((d for p, d in pairs if p.arg == name), None)
        if not isinstance(default, _UNHASHABLE):
            return False
        kind = _KIND[type(default)]
        related = [{"file": ctx.filename, "line": call.lineno,
                    "message": f"the call that passes `{name}` to static argument `{param}` of `{function}`"}]
        ctx.report(self, default, f"default {kind} of `{name}` in `{fn.name}` is passed on to static argument "  # type: ignore[union-attr]
                   f"`{param}` of `{function}` (line {call.lineno}): a call of `{fn.name}` that leaves `{name}` out "  # type: ignore[union-attr]
                   "raises 'Non-hashable static arguments'; use a hashable default (None, a tuple, a frozen "
                   "mapping)", severity="warning", kind=f"a {kind}", param=param, function=function, related=related)
        return True

    def _at_declaration(self, ctx: Context, call: ast.Call, param: str, function: str, what: str, sure: bool) -> None:
        """An array's fix is at the declaration (drop the position from the static arguments), not at the call:
        say it there too, once per declared position, naming the first call that passes one."""
        report_at_declaration(
            self, ctx, call, param, f"static argument `{param}` of `{function}` is passed {what} (line {call.lineno}): "
            "arrays cannot be hashed, so that call raises 'Non-hashable static arguments'; drop it from the "
            "static arguments (it is a traced argument then)", severity="error" if sure else "warning",
            kind=what, param=param, function=function)

    def _defaults(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
        for dec in fn.decorator_list:
            spec = decorator_spec(ctx.info, dec)
            if spec is None or spec.wrapper not in JIT_LIKE:
                continue
            static = spec.static_params(fn)
            a = fn.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=False))
            pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None]
            for p, d in pairs:
                if p.arg in static and isinstance(d, _UNHASHABLE):
                    # The default itself works (jit hashes only the arguments passed), so this is a
                    # warning, and turning it into a tuple may break list operations in the body: unsafe.
                    fix = self._fix(d, ctx)
                    if fix is not None:
                        fix.safety = "unsafe"
                    ctx.report(self, d, f"default of static argument `{p.arg}` of `{fn.name}` is a "
                               f"{_KIND[type(d)]}: the default works, but a caller passing a {_KIND[type(d)]} gets "
                               "'Non-hashable static arguments'; use a tuple", severity="warning",
                               fix=fix, kind=f"a {_KIND[type(d)]}", param=p.arg, function=fn.name)

    def _fix(self, value: ast.AST, ctx: Context) -> object:
        """The hashable literal with the same constants, or None when the elements are not all constants."""
        if not isinstance(value, (ast.List, ast.Set)) or not all(_is_constant(e) for e in value.elts):
            return None
        items = ", ".join(ctx.segment(e) for e in value.elts)
        if isinstance(value, ast.List):
            repl = f"({items},)" if len(value.elts) == 1 else f"({items})"
            return ctx.edit(self, value, repl, "Pass a tuple")
        return ctx.edit(self, value, f"frozenset({{{items}}})", "Pass a frozenset")


def _is_constant(node: ast.AST) -> bool:
    """A literal constant, or a tuple of them (``-1`` and ``(0, 1)`` included)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple):
        return all(_is_constant(e) for e in node.elts)
    return False
