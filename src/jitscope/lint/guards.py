"""Paths the tracing model narrows: branches that run only on concrete values, and compile-time evaluation.

``if isinstance(x, jax.core.Tracer): return ...`` leaves ``x`` concrete after the ``if``;
``if not isinstance(x, Tracer): <Python on x>`` runs that body only eagerly; ``isinstance(x,
np.ndarray)`` or ``(int, float)`` is True only for values that are not tracers (``concrete_facts``: one
model of what a test proves, read by ``if``, ``assert``, conditional expressions and ``and``/``or``). Inside
``with jax.ensure_compile_time_eval():`` jnp on non-tracer values computes concrete values
(tests/test_jaxmodel.py). The tables live in ``jaxmodel/values.py`` and ``jaxmodel/known.py``.
"""

from __future__ import annotations

import ast

from ..jaxmodel import known, values
from . import branches

NO_FACTS: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
_NONE = NO_FACTS


def concrete_facts(ctx, test: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """(names that are not tracers where ``test`` is true, names that are not tracers where it is false).

    A tracer is an instance of ``jax.Array`` and of no NumPy or Python scalar/str type, so ``isinstance(x,
    np.ndarray)`` (``np.generic``, ``int``, ...: ``values.concrete_type``) is true only for a concrete ``x``,
    ``isinstance(x, jax.core.Tracer)`` (or ``jax.Array``: ``values.admits_every_tracer``) is false only for one,
    and ``isinstance(x, (np.ndarray, jax.Array))`` proves nothing when true. ``not`` swaps the two; ``a and b``
    is true where both are and false where ``a`` is, or ``a`` is true and ``b`` false (``or`` dually); ``type(x)
    is np.ndarray`` is ``isinstance`` for one exact type."""
    t = type(test)
    if t is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        true, false = concrete_facts(ctx, test.operand)  # type: ignore[attr-defined]
        return false, true
    if t is ast.BoolOp:
        parts = [concrete_facts(ctx, v) for v in test.values]  # type: ignore[attr-defined]
        true, false = parts[0]
        for t2, f2 in parts[1:]:
            if type(test.op) is ast.And:  # type: ignore[attr-defined]
                true, false = true | t2, false & (true | f2)
            else:
                true, false = true & (false | t2), false | f2
        return true, false
    if t is ast.Call and type(test.func) is ast.Name and test.func.id in _predicates(ctx):  # type: ignore[attr-defined]
        return _through_predicate(ctx, test, _predicates(ctx)[test.func.id])  # type: ignore[arg-type]
    if t is ast.Call and test.args and type(test.args[0]) is ast.Name:  # type: ignore[attr-defined]
        q = ctx.resolve(test.func)  # type: ignore[attr-defined]
        name = frozenset({test.args[0].id})  # type: ignore[attr-defined]
        if q in values.CONCRETE_PREDICATES:
            return name, frozenset()
        if q == "isinstance" and len(test.args) == 2:  # type: ignore[attr-defined]
            kinds = _kinds(ctx, test.args[1])  # type: ignore[attr-defined]
            if kinds and all(values.concrete_type(k) for k in kinds):
                return name, frozenset()
            if any(values.admits_every_tracer(k) for k in kinds):
                return frozenset(), name
        return _NONE
    if t is ast.Compare and len(test.ops) == 1 and type(test.left) is ast.Call:  # type: ignore[attr-defined]
        call, op = test.left, type(test.ops[0])  # type: ignore[attr-defined]
        if not (ctx.resolve(call.func) == "type" and len(call.args) == 1 and type(call.args[0]) is ast.Name):
            return _NONE
        kinds = _kinds(ctx, test.comparators[0])  # type: ignore[attr-defined]
        if not kinds or not all(values.concrete_type(k) for k in kinds):
            return _NONE
        name = frozenset({call.args[0].id})
        if op in ((ast.Is, ast.Eq) if len(kinds) == 1 else (ast.In,)):
            return name, frozenset()
        if op in ((ast.IsNot, ast.NotEq) if len(kinds) == 1 else (ast.NotIn,)):
            return frozenset(), name
    return _NONE


def _predicates(ctx) -> dict[str, ast.FunctionDef]:
    """Module-level functions whose body is one ``return`` of a test on their parameters (``def _is_tracer(v):
    return isinstance(v, jax.core.Tracer)``): a call proves what that test proves about its arguments."""
    return ctx.memo(_find_predicates)


def _find_predicates(ctx) -> dict[str, ast.FunctionDef]:
    found: dict[str, ast.FunctionDef] = {}
    for s in ctx.tree.body:
        body = s.body[1:] if isinstance(s, ast.FunctionDef) and s.body and isinstance(s.body[0], ast.Expr) \
            and isinstance(s.body[0].value, ast.Constant) else getattr(s, "body", None)
        if isinstance(s, ast.FunctionDef) and not s.decorator_list and body and len(body) == 1 \
                and isinstance(body[0], ast.Return) and body[0].value is not None:
            found[s.name] = s
    return found


def _through_predicate(ctx, call: ast.Call, fn: ast.FunctionDef) -> tuple[frozenset[str], frozenset[str]]:
    """What ``fn(args)`` proves: its returned test's facts on parameters, renamed to the arguments passed."""
    params = [p.arg for p in fn.args.posonlyargs + fn.args.args]
    passed = {p: a.id for p, a in zip(params, call.args, strict=False) if isinstance(a, ast.Name)}
    if len(call.args) > len(params) or call.keywords or getattr(fn, "_jitscope_in_facts", False):
        return NO_FACTS
    fn._jitscope_in_facts = True  # type: ignore[attr-defined]  # a predicate that calls itself proves nothing
    try:
        true, false = concrete_facts(ctx, fn.body[-1].value)  # type: ignore[attr-defined]
    finally:
        fn._jitscope_in_facts = False  # type: ignore[attr-defined]
    return (frozenset(passed[n] for n in true if n in passed), frozenset(passed[n] for n in false if n in passed))


def _kinds(ctx, node: ast.AST) -> list[str]:
    """The qualified names of a type or a literal tuple of types (``""`` for one that does not resolve)."""
    if type(node) is ast.BinOp and type(node.op) is ast.BitOr:  # type: ignore[attr-defined]  # `np.ndarray | int`
        return _kinds(ctx, node.left) + _kinds(ctx, node.right)  # type: ignore[attr-defined]
    items = node.elts if type(node) in (ast.Tuple, ast.List, ast.Set) else [node]  # type: ignore[attr-defined]
    return [k for i in items for k in (_kinds(ctx, i) if type(i) is ast.BinOp else [ctx.resolve(i) or ""])]


def never_taken(ctx, concrete: frozenset[str]) -> bool:
    """Does a path that needs these names concrete never run traced (one is abstract on every way)?"""
    return any(ctx.is_must(ast.Name(id=n, ctx=ast.Load())) for n in concrete)


def narrowed_traced(ctx, node: ast.BoolOp | ast.IfExp) -> bool:
    """``Context.is_traced`` of ``a and b`` / ``a if t else b`` with each operand read where it is evaluated:
    ``isinstance(x, np.ndarray) and x.sum() > 0`` is no tracer (``x`` is concrete in the second operand)."""
    if type(node) is ast.IfExp:
        true, false = concrete_facts(ctx, node.test)
        return _traced_with(ctx, node.body, true) or _traced_with(ctx, node.orelse, false)
    return bool(traced_operands(ctx, node, first=True))


def traced_operands(ctx, node: ast.BoolOp, first: bool = False) -> list[ast.AST]:
    """The operands of ``a and b and ...`` that are tracers where Python evaluates them (``b`` only where ``a``
    is true: what ``a`` proved holds there; for ``or``, where it is false); only the first if ``first``."""
    saved: list = []
    out: list[ast.AST] = []
    try:
        for i, v in enumerate(node.values):
            if ctx.is_traced(v):
                out.append(v)
                if first:
                    break
            if i < len(node.values) - 1:
                true, false = concrete_facts(ctx, v)
                saved += forget(ctx, sorted(true if type(node.op) is ast.And else false))
    finally:
        restore(saved)
    return out


def _traced_with(ctx, node: ast.AST, concrete: frozenset[str]) -> bool:
    saved = forget(ctx, sorted(concrete)) if concrete else []
    try:
        return ctx.is_traced(node)
    finally:
        restore(saved)


# The visitor's handlers for nodes whose operands run on narrowed paths (``self`` is lint/visitor.py's visitor).

def visit_two_sided(self, node: ast.If, true: frozenset[str], false: frozenset[str]) -> None:
    """Visit the body with ``true`` concrete and the ``else`` with ``false`` concrete. A branch that needs
    a must-abstract name concrete never runs traced (skipped); after the ``if``, what the only branch that
    falls through proved still holds."""
    ctx = self.ctx
    body_dead, else_dead = never_taken(ctx, true), never_taken(ctx, false)

    def run(dead: bool, block: list[ast.stmt], names: frozenset[str]) -> None:
        if not dead:
            saved = forget(ctx, sorted(names))
            try:
                branches.visit_branch(self, block)
            finally:
                restore(saved)

    if node.orelse and not body_dead and not else_dead:  # two alternatives: the `else` does not see the `if`'s bindings
        branches.alternatives(self, node.body, node.orelse, lambda: run(False, node.body, true),
                              lambda: run(False, node.orelse, false))
    else:
        run(body_dead, node.body, true)
        run(else_dead, node.orelse, false)
    # After the `if`: what a branch that falls through proved (a dead branch counts as falling through:
    # when it is the only one, the rest never runs traced, and narrowing it says no more than that)
    body_falls, else_falls = not leaves(node.body), not leaves(node.orelse)
    if body_falls != else_falls:
        forget(ctx, sorted(true if body_falls else false))

def visit_boolop(self, node: ast.BoolOp) -> None:
    """``a and b`` evaluates ``b`` only where ``a`` is true (``or``: false): what ``a`` proved holds there."""
    ctx = self.ctx
    if not ctx.in_traced:
        self.visit_all(node.values)
        return
    saved: list = []
    try:
        for i, v in enumerate(node.values):
            self.visit(v)
            if i < len(node.values) - 1:
                true, false = concrete_facts(ctx, v)
                saved += forget(ctx, sorted(true if type(node.op) is ast.And else false))
    finally:
        restore(saved)

def visit_ifexp(self, node: ast.IfExp) -> None:
    """``a if test else b``: ``a`` where ``test`` is true, ``b`` where it is false (``visit_two_sided``)."""
    ctx = self.ctx
    self.visit(node.test)
    true, false = concrete_facts(ctx, node.test) if ctx.in_traced else NO_FACTS
    for branch, names in ((node.body, true), (node.orelse, false)):
        saved = forget(ctx, sorted(names))
        try:
            self.visit(branch)
        finally:
            restore(saved)

def visit_assert(self, node: ast.Assert) -> None:
    """After ``assert isinstance(x, np.ndarray)`` the code runs only on a concrete ``x``."""
    self.visit(node.test)
    if node.msg is not None:
        self.visit(node.msg)
    if self.ctx.in_traced:
        forget(self.ctx, sorted(concrete_facts(self.ctx, node.test)[0]))


def container_guard(ctx, test: ast.AST) -> tuple[list[str], bool] | None:
    """(names, True) if ``test`` holds only when those names are Python containers (``isinstance(x, (tuple,
    list))``, ``isinstance(x, dict)``, also as one term of an ``and``), (names, False) if it fails only when they
    are (``not isinstance(...)``, also as one term of an ``or``); None otherwise.
    A container of tracers is not a tracer: under that branch only its leaves are traced."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = container_guard(ctx, test.operand)
        return (inner[0], not inner[1]) if inner is not None else None
    if isinstance(test, ast.BoolOp):  # `isinstance(xs, Sequence) and len(xs) > 0`: true only for a container
        want = isinstance(test.op, ast.And)  # an `or` of `not isinstance(...)`: false only for a container
        hit = next((g for g in (container_guard(ctx, v) for v in test.values) if g is not None and g[1] is want), None)
        return hit
    if not (isinstance(test, ast.Call) and len(test.args) == 2 and isinstance(test.args[0], ast.Name)
            and ctx.resolve(test.func) == "isinstance"):
        return None
    names = _kinds(ctx, test.args[1])
    # `(list, tuple)`, or containers and host types (`(np.ndarray, list)`): not a tracer, maybe one's container
    if any(n in values.CONTAINER_TYPES for n in names) and all(
            n in values.CONTAINER_TYPES or values.concrete_type(n) for n in names):
        return [test.args[0].id], True
    return None


def as_container(ctx, names: list[str]) -> list[tuple[object, str, bool, bool]]:
    """Make ``names`` Python containers of traced leaves in the frames that bind them (``unbox`` undoes it)."""
    fresh = [n for n in names if n not in getattr(ctx._local_frame(n), "pytrees", ())]
    saved = forget(ctx, fresh)
    for f, name, _, _ in saved:
        f.pytrees.add(name)  # type: ignore[attr-defined]
        f.arrays.discard(name)  # type: ignore[attr-defined]
    return saved


def unbox(saved: list[tuple[object, str, bool, bool]]) -> None:
    """Undo ``as_container``."""
    for f, name, _, array in saved:
        f.pytrees.discard(name)  # type: ignore[attr-defined]
        if array:
            f.arrays.add(name)  # type: ignore[attr-defined]
    restore(saved)


def _predicate_test(test: ast.AST) -> tuple[str, str] | None:
    """(argument name, predicate name) of ``pred(name)``: a call of a plain or dotted function on one name."""
    if isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords and isinstance(test.args[0], ast.Name) \
            and isinstance(test.func, (ast.Name, ast.Attribute)):
        return test.args[0].id, test.func.id if isinstance(test.func, ast.Name) else test.func.attr
    return None


def proven_at(ctx, call: ast.Call) -> frozenset[tuple[int | str, str]]:
    """(position or keyword, predicate) of the arguments of ``call`` that a predicate holds for there: ``assert
    pred(x)`` earlier in an enclosing block (or one operand of an ``and`` there), or an enclosing ``if pred(x):``
    whose body holds the call. The callee's ``if not pred(x):`` branch does not run on this way (``dead_branch``)."""
    chain = [*ctx.parents, call]
    held: set[tuple[str, str]] = set()
    for k in range(len(chain) - 1):
        holder, child = chain[k], chain[k + 1]
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            held.clear()  # facts of an outer function do not hold inside a nested one
        if isinstance(holder, ast.If) and child in holder.body and (t := _predicate_test(holder.test)):
            held.add(t)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(holder, field, None)
            if not isinstance(block, list) or child not in block:
                continue
            for stmt in block[:block.index(child)]:
                if isinstance(stmt, ast.Assert):
                    tests = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.And) \
                        else [stmt.test]
                    held.update(t for t in map(_predicate_test, tests) if t)
                elif held and isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    bound = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                    held = {h for h in held if h[0] not in bound}  # `c = other()`: the fact was about the old value
    if not held:
        return frozenset()
    out: set[tuple[int | str, str]] = set()
    for i, a in enumerate(call.args):
        out.update((i, pred) for name, pred in held if isinstance(a, ast.Name) and a.id == name)
    for kw in call.keywords:
        out.update((kw.arg, pred) for name, pred in held if kw.arg and isinstance(kw.value, ast.Name)
                   and kw.value.id == name)
    return frozenset(out)


def dead_branch(ctx, test: ast.AST) -> bool | None:
    """True if the body of ``if test:`` never runs on the ways this function is traced, False if its
    ``else`` never does, None if unknown: ``p is None`` / ``p is not None`` on a parameter that every
    recorded traced call passes a value other than ``None`` (the call graph's ``not_none``); ``pred(p)`` /
    ``not pred(p)`` on a parameter every recorded traced call proved ``pred`` of (``proven_at``)."""
    f = ctx.frame
    if f.proven:
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        t = _predicate_test(test.operand if negated else test)  # type: ignore[attr-defined]
        if t is not None and t in f.proven and t[0] not in f.bound:
            return negated
    if not f.not_none or not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Constant) and right.value is None):
        return None
    if left.id not in f.not_none or left.id in f.bound:
        return None
    if isinstance(test.ops[0], ast.Is):
        return True
    if isinstance(test.ops[0], ast.IsNot):
        return False
    return None


_BLOCKS = ("body", "orelse", "finalbody")
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def unreachable(chain: list[ast.AST]) -> bool:
    """Is the node that ends ``chain`` (its ancestors, outermost first, then itself) after a ``return``/``raise``/
    ``continue``/``break`` of its own block or of a block around it, within its function? Python never runs
    that code, so JAX never traces it."""
    for k in range(len(chain) - 2, -1, -1):
        holder, child = chain[k], chain[k + 1]
        for field in _BLOCKS:
            block = getattr(holder, field, None)
            if isinstance(block, list) and _after_exit(block, child):
                return True
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
    return False


def _after_exit(block: list, child: ast.AST) -> bool:
    exited = False
    for stmt in block:
        if stmt is child:
            return exited
        exited = exited or isinstance(stmt, _EXITS)
    return False  # `child` is not a statement of this block


def leaves(body: list[ast.stmt]) -> bool:
    """Does ``body`` always leave the enclosing block (ends with return/raise/continue/break)?"""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def compile_time_eval(ctx, node: ast.With | ast.AsyncWith) -> bool:
    """Is ``node`` a ``with jax.ensure_compile_time_eval():`` block?"""
    for item in node.items:
        e = item.context_expr
        if isinstance(e, ast.Call) and ctx.resolve(e.func) in known.CONTEXTS:
            return True
    return False


def forget(ctx, names: list[str]) -> list[tuple[object, str, bool, bool]]:
    """Make ``names`` concrete in the frames that bind them; returns what to restore with ``restore``."""
    saved = []
    for name in names:
        f = ctx._local_frame(name)
        if f is not None and name in f.traced_names:
            saved.append((f, name, name in f.must, name in f.arrays))
            f.traced_names.discard(name)
            f.must.discard(name)
    return saved


def restore(saved: list[tuple[object, str, bool, bool]]) -> None:
    for f, name, must, _ in saved:
        f.traced_names.add(name)  # type: ignore[attr-defined]
        if must:
            f.must.add(name)  # type: ignore[attr-defined]


EXPECTING_ERROR = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "raises_regex"})


def expects_error(chain: list[ast.AST]) -> bool:
    """Is the node that ends ``chain`` inside a block that asserts an exception (``with pytest.raises(E):``,
    ``with self.assertRaises(E):``) within its function? The test runs that code for the error it raises;
    its result was never meant to be used (watch reads such blocks the same way: collect/program_frames.py)."""
    for holder in reversed(chain[:-1]):
        if isinstance(holder, (ast.With, ast.AsyncWith)) and any(
                isinstance(i.context_expr, ast.Call) and _called_name(i.context_expr.func) in EXPECTING_ERROR
                for i in holder.items):
            return True
        if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
    return False


def _called_name(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
