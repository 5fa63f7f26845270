"""JS617 prng-key-reused."""

from __future__ import annotations

import ast

from ...jaxmodel.fixes import KEY_PER_ITERATION, SPLIT_KEYS
from ...jaxmodel.values import RANDOM_NON_CONSUMING
from ..context import Context
from ..rule import Rule
from ._util import in_test_file

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Use = tuple  # (the consuming call, the constant index its result is taken at, or None)
_SCOPES = (*_DEFS, ast.Lambda, ast.ClassDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# the reorderings of data: one key passed to two of them on different data reorders both alike (deliberate)
_REORDERING = frozenset({"jax.random.permutation", "jax.random.shuffle", "jax.random.choice"})


class PrngKeyReused(Rule):
    """A PRNG key consumed twice: the same numbers drawn for two purposes.

    ## What it does
    Follows each name passed as the key (first argument, or ``key=``) of a ``jax.random`` function that
    consumes it (``split``, every sampler, ``bits``; not ``fold_in``, ``key_data``, ``clone``) through the
    statements of a function, and flags a second consumer reached on every path from the first with no
    rebinding of the name between them: in the same block, or after an ``if`` whose every branch consumed
    it; and a consumer inside a Python ``for``/``while`` loop of a key the loop never rebinds (every
    iteration draws the same numbers). A key consumed in only one branch of an ``if`` is not claimed, and
    ``split(key)[0]`` / ``split(key)[1]`` (distinct keys) is not flagged. A loop consumer under an ``if`` (or
    ``try``/``match``), or in a body with an unconditional ``return``/``break``/``raise``, runs at most once per
    loop: not claimed. A comprehension's own variable is a new key each element and a new name in each
    comprehension. One key given to two reorderings (``permutation``, ``shuffle``, ``choice``) of different data
    reorders both alike, which is why it is shared: not flagged. In test files (``test_*.py``,
    ``*_test.py``, under ``tests/``) the finding is ``info``: test inputs drawn from one key are equal or
    correlated, which seldom changes what the test checks.

    ## Why is this bad?
    JAX's random functions are pure functions of their key: two consumers of one key draw the same (or
    correlated) numbers, silently, eagerly and under jit alike. JAX's own checker (``jax_debug_key_reuse``)
    raises ``KeyReuseError`` at exactly these calls (checked under real JAX), but it is off by default.

    ## Example
    ```python
    rng, _rng1, _rng2 = jax.random.split(rng, num=3)
    ruleset_rng = jax.random.split(rng, num=n)
    reset_rng = jax.random.split(rng, num=n)      # the same keys as ruleset_rng
    ```

    ## Use instead
    ```python
    rng, _rng1, _rng2 = jax.random.split(rng, num=3)
    ruleset_rng = jax.random.split(_rng1, num=n)
    reset_rng = jax.random.split(_rng2, num=n)
    ```

    ## Fix safety
    No fix is offered: which subkey each use should get is the program's choice.
    """

    code = "JS617"
    name = "prng-key-reused"
    message = ("key `{key}` is consumed again without being split or rebound since line {first} "
               "(`{first_call}`): both draw the same random numbers; " + SPLIT_KEYS.title)
    severity = "warning"
    confidence = "likely"
    nodes = (ast.FunctionDef, ast.AsyncFunctionDef)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        _Scan(self, ctx, node.name).block(node.body, {})  # type: ignore[attr-defined]


class _Scan:
    """One function's statements in order, with the key names consumed so far on every path (name -> call)."""

    def __init__(self, rule: Rule, ctx: Context, function: str) -> None:
        self.rule, self.ctx, self.function = rule, ctx, function  # findings are in this function's body
        # a test's inputs drawn from one key are equal or correlated, which seldom changes what it checks: info
        self.severity = "info" if in_test_file(ctx) else rule.severity

    def block(self, stmts: list[ast.stmt], used: dict[str, _Use]) -> dict[str, _Use]:
        for s in stmts:
            used = self.stmt(s, used)
        return used

    def stmt(self, s: ast.stmt, used: dict[str, _Use]) -> dict[str, _Use]:
        if isinstance(s, _SCOPES):
            return _drop(used, {s.name})  # a nested def is walked on its own (its own FunctionDef node)
        if isinstance(s, ast.If):
            used = self.uses(s.test, used)
            body = self.block(s.body, dict(used))
            orelse = self.block(s.orelse, dict(used))
            # a key consumed in every branch is consumed after the `if`; one rebound in a branch is not known
            return {k: c for k, c in body.items() if k in orelse}
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            used = self.uses(s.iter if not isinstance(s, ast.While) else s.test, used)
            rebound = _stored(s)
            before = _drop(used, rebound)
            self.loop(s, rebound)
            self.block(s.body, dict(before))
            self.block(s.orelse, dict(before))
            return before
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                used = self.uses(item.context_expr, used)
            return self.block(s.body, _drop(used, _stored_in(s.items)))
        if isinstance(s, ast.Try):
            self.block(s.body, dict(used))
            for h in s.handlers:
                self.block(h.body, {})
            return _drop(used, _stored(s))
        if isinstance(s, ast.Match):
            return _drop(used, _stored(s))
        used = self.uses(s, used)
        return _drop(used, _stored(s))

    def uses(self, node: ast.AST, used: dict[str, _Use]) -> dict[str, _Use]:
        for call, index in _consumers(self.ctx, node):
            key = _key(call)
            if key is None:
                continue
            first = used.get(key.id)
            if first is not None and not _distinct_halves(first, (call, index)) \
                    and not self._aligned(first[0], call):
                self.report(call, key.id, first[0])
            used = {**used, key.id: (call, index)}
        return used

    def _aligned(self, a: ast.Call, b: ast.Call) -> bool:
        """``permutation(key, x)`` then ``permutation(key, y)``: one reordering of two different data (inputs and
        labels shuffled alike); the shared key is the point, not a reuse."""
        q = self.ctx.resolve(a.func)
        return q in _REORDERING and q == self.ctx.resolve(b.func) and len(a.args) > 1 and len(b.args) > 1 \
            and ast.dump(a.args[1]) != ast.dump(b.args[1])

    def loop(self, loop: ast.stmt, rebound: set[str]) -> None:
        """A consumer in the loop's body of a key the loop never rebinds: the same draw every iteration. A body
        with an unconditional ``return``/``break``/``raise`` runs at most once; a consumer under an ``if`` (or
        in a ``try``/``match``) may run once or never: neither is claimed."""
        body = loop.body  # type: ignore[attr-defined]
        if any(isinstance(s, (ast.Return, ast.Break, ast.Raise)) for s in body):
            return
        for s in body:
            if isinstance(s, (ast.If, ast.Try, ast.Match)):
                continue
            for call, _ in _consumers(self.ctx, s):
                key = _key(call)
                if key is not None and key.id not in rebound:
                    text = (f"key `{key.id}` is consumed in every iteration of the loop at line {loop.lineno}, which "
                            f"never splits or rebinds it: every iteration draws the same random numbers; "
                            + KEY_PER_ITERATION.title)
                    self.ctx.report(self.rule, call, text, severity=self.severity, in_function=self.function, key=key.id,
                                    where="loop", first=call.lineno, first_call=self.ctx.segment(call.func))
                    return

    def report(self, call: ast.Call, key: str, first: ast.Call) -> None:
        self.ctx.report(self.rule, call, severity=self.severity, in_function=self.function, key=key, where="straight",
                        first=first.lineno, first_call=self.ctx.segment(first.func))


def _consumers(ctx: Context, node: ast.AST) -> list[tuple[ast.Call, object]]:
    """Calls of consuming ``jax.random`` functions in ``node`` (not inside nested functions or lambdas), in
    source order, each with the constant index its result is taken at (``split(key)[1]``), or None."""
    out: list[tuple[ast.Call, object]] = []
    index: dict[ast.Call, object] = {}
    stack = [node]
    local: dict[ast.AST, frozenset[str]] = {node: frozenset()}  # the comprehension variables in scope at a node
    while stack:
        n = stack.pop()
        if n is not node and isinstance(n, _SCOPES):
            continue
        names = local[n]
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Call) and isinstance(n.slice, ast.Constant):
            index[n.value] = n.slice.value
        if isinstance(n, ast.Call):
            q = ctx.resolve(n.func) or ""
            key = _key(n)
            # a key that is a comprehension's own variable is a new key each element: no reuse across elements
            if q.startswith("jax.random.") and q not in RANDOM_NON_CONSUMING and (key is None or key.id not in names):
                out.append(n)
        inner = names
        if isinstance(n, _COMPS):
            inner = names | {t.id for g in n.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
        for c in ast.iter_child_nodes(n):
            local[c] = inner
            stack.append(c)
    return [(c, index.get(c)) for c in sorted(out, key=lambda c: (c.lineno, c.col_offset))]


def _key(call: ast.Call) -> ast.Name | None:
    arg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "key"), None)
    return arg if isinstance(arg, ast.Name) else None


def _distinct_halves(a: _Use, b: _Use) -> bool:
    """``split(key)[0]`` and ``split(key)[1]``: the same split, different subkeys (not a reuse in effect)."""
    return a[1] is not None and b[1] is not None and a[1] != b[1] and ast.dump(a[0]) == ast.dump(b[0])


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))} | {
        n.name for n in ast.walk(node) if isinstance(n, _SCOPES) and hasattr(n, "name")}


def _stored_in(items: list[ast.withitem]) -> set[str]:
    return {n.id for i in items if i.optional_vars is not None for n in ast.walk(i.optional_vars)
            if isinstance(n, ast.Name)}


def _drop(used: dict[str, _Use], names: set[str]) -> dict[str, _Use]:
    return {k: c for k, c in used.items() if k not in names} if names & used.keys() else used
