"""JS304 traced-python-int."""

from __future__ import annotations

import ast

from ...jaxmodel import values
from ..context import Context
from ..rule import Rule
from ._util import short
from .js303_traced_shape_argument import _SHAPE_ARGS


class TracedPythonInt(Rule):
    """A traced value where Python needs an ``int``: ``range(n)``, a slice bound ``x[:n]``, a static
    parameter (``one_hot``'s ``num_classes``, ``axis=``), or a count kept on ``self`` and used as one.

    ## What it does
    Flags, inside traced code, ``range(...)`` given a traced bound, a slice of a traced array whose
    start, stop or step is traced, a traced value for a parameter JAX needs as a Python int (the
    table ``STATIC_INT_ARGS`` in ``jaxmodel/values.py``: ``jax.nn.one_hot`` ``num_classes``,
    ``jnp.sum(x, axis=...)``, ``lax.dynamic_slice`` sizes, ``jax.random.split`` ``num``, ``jnp.repeat``
    without ``total_repeat_length``, ...; shapes are JS303's), and a traced value stored on ``self`` (``self.n = jnp.ceil(...)``)
    that a method of the same class uses as a count: in ``range(...)``, a slice bound or a shape argument
    (``jnp.arange(self.n)``, ``jnp.zeros(self.n)``, ``x.reshape(self.n, -1)``).

    Under ``jax.jit`` every ``jax.numpy`` operation gives a tracer, even one computed only from
    Python numbers and shapes (``jnp.ceil(n / b)``, ``jnp.cumsum(jnp.array(sizes))``): such a count
    is a tracer too. A registered pytree whose ``tree_unflatten`` calls its class runs ``__init__``
    inside every trace the object enters, so what ``__init__`` computes with ``jnp`` is traced there.

    ## Why is this bad?
    Python asks a tracer for a concrete integer it does not have: ``range`` raises
    ``TracerIntegerConversionError``, an array slice raises ``IndexError`` ("Array slice indices must
    have static start/stop/step"), a shape raises ``ConcretizationTypeError``. The same code works
    eagerly, so it passes tests that do not jit it.

    ## Example
    ```python
    @jax.tree_util.register_pytree_node_class
    class Chunks:
        def __init__(self, x, size):
            self.x, self.size = x, size
            self.n = jnp.ceil(x.shape[0] / size).astype(int)

        def tree_flatten(self):
            return (self.x,), self.size

        @classmethod
        def tree_unflatten(cls, size, children):
            return cls(*children, size)

        def starts(self):
            return jnp.arange(self.n) * self.size
    ```

    ## Use instead
    Compute counts with Python or NumPy (``self.n = math.ceil(x.shape[0] / size)``,
    ``np.cumsum(sizes)``), keep a traced bound out of Python (``lax.fori_loop``,
    ``lax.dynamic_slice``), or make the argument static.

    ## Fix safety
    No fix is offered.
    """

    code = "JS304"
    name = "traced-python-int"
    message = "{what}: under jit it is a tracer ({error})"
    severity = "error"
    confidence = "certain"
    requires = "abstract"
    nodes = (ast.Call, ast.Subscript, ast.Assign)
    calls = ("range", *values.STATIC_INT_ARGS)

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, ast.Call):
            q = ctx.resolve(node.func)
            if q in values.STATIC_INT_ARGS:
                self._static_param(node, ctx, q)
                return
            if q != "range":
                return
            hit = next((a for a in node.args if ctx.is_traced(a)), None)
            if hit is not None:
                what = f"`range(...)` needs a Python int for its bound `{short(ctx, hit)}`"
                self._report(ctx, node, hit, what, "TracerIntegerConversionError",
                             "use lax.fori_loop, or a static bound")
        elif isinstance(node, ast.Subscript):
            if not isinstance(node.ctx, ast.Load) or not ctx.is_traced(node.value):
                return
            hit = next((b for s in _slices(node.slice) for b in (s.lower, s.upper, s.step)
                        if b is not None and ctx.is_traced(b)), None)
            if hit is not None:
                what = f"`{short(ctx, node)}` needs a Python int for its slice bound `{short(ctx, hit)}`"
                self._report(ctx, node, hit, what, "IndexError: array slice indices must be static",
                             "use lax.dynamic_slice with a static size")
        else:
            self._stored(node, ctx)  # type: ignore[arg-type]

    def _static_param(self, node: ast.Call, ctx: Context, q: str) -> None:
        """``jax.nn.one_hot(x, n)``, ``jnp.sum(x, axis=a)``, ``lax.dynamic_slice(x, i, sizes)``: a traced int."""
        unless = values.STATIC_INT_UNLESS.get(q)
        if unless is not None and any(k.arg == unless for k in node.keywords):
            return
        positions, keywords = values.STATIC_INT_ARGS[q]
        args = [node.args[i] for i in positions if i < len(node.args)]
        args += [k.value for k in node.keywords if k.arg in keywords]
        for a in args:
            parts = a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a]
            hit = next((p for p in parts if not isinstance(p, ast.Starred) and ctx.is_traced(p)), None)
            if hit is not None:
                fn = "jnp." + q.rpartition(".")[2] if q.startswith("jax.numpy.") else q.removeprefix("jax.")
                what = f"`{fn}` needs a Python int for `{short(ctx, hit)}`"
                self._report(ctx, node, hit, what, "it raises at trace time",
                             "pass a Python int (a static argument, or one computed from shapes)")
                return

    def _stored(self, node: ast.Assign, ctx: Context) -> None:
        """``self.n = <traced>`` where a method of the class uses ``self.n`` as a count."""
        attr = next((t.attr for t in node.targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                     and t.value.id == "self"), None)
        if attr is None or ctx._local_frame("self") is not ctx.frame or not ctx.is_traced(node.value):
            return
        cls = _enclosing_class(ctx)
        if cls is None:
            return
        use = _count_use(ctx, cls, attr)
        if use is not None:
            method, sink = use
            what = (f"`self.{attr}` is computed with jnp here and used as a Python int in `{method}` "
                    f"(`{short(ctx, sink, 30)}`, line {sink.lineno})")
            self._report(ctx, node, node.value, what, "ConcretizationTypeError where it is used",
                         "compute it with Python or NumPy (math.ceil, np.cumsum)")

    def _report(self, ctx: Context, node: ast.AST, subject: ast.AST, what: str, error: str, fix: str) -> None:
        if _filter_static(ctx, subject):
            return
        ctx.report(self, node, f"{self.message.format(what=what, error=error)}; {fix}", subject=subject,
                   what=what, error=error)


def _filter_static(ctx: Context, node: ast.AST) -> bool:
    """Does ``node`` read only parameters that ``equinox.filter_jit`` keeps static when they are Python ints
    (no array annotation, not used like an array): a program that works passes an int there."""
    frame = ctx.frame
    if frame.spec is None or not frame.spec.filter:
        return False
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name) and ctx.is_traced(n)]
    return bool(names) and all(n.id in frame.params and n.id not in frame.must for n in names) and not any(
        isinstance(n, ast.Call) for n in ast.walk(node))


def _slices(index: ast.AST) -> list[ast.Slice]:
    if isinstance(index, ast.Slice):
        return [index]
    if isinstance(index, ast.Tuple):
        return [e for e in index.elts if isinstance(e, ast.Slice)]
    return []


def _enclosing_class(ctx: Context) -> ast.ClassDef | None:
    fn = ctx.frame.node
    for p in reversed(ctx.parents):
        if isinstance(p, ast.ClassDef):
            return p if fn in p.body else None
    owners = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and fn in s.body]  # walked alone
    return owners[0] if owners else None


def _count_use(ctx: Context, cls: ast.ClassDef, attr: str) -> tuple[str, ast.AST] | None:
    """(method, expression) of a use of ``self.<attr>`` as a Python int in a method of ``cls``: directly, or
    through a local name bound to it (``n = self.n``, ``v, n = g, self.n``)."""
    for m in cls.body:
        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            aliases = _aliases(m, attr)
            for n in ast.walk(m):
                if any(_is_count(e, attr, aliases) for e in _int_slots(ctx, n)):
                    return m.name, n
    return None


def _aliases(method: ast.AST, attr: str) -> set[str]:
    out = set()
    for n in ast.walk(method):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            pairs = [(n.targets[0], n.value)]
            if isinstance(n.targets[0], ast.Tuple) and isinstance(n.value, ast.Tuple) \
                    and len(n.targets[0].elts) == len(n.value.elts):
                pairs = list(zip(n.targets[0].elts, n.value.elts))
            out.update(t.id for t, v in pairs if isinstance(t, ast.Name) and _is_attr(v, attr))
    return out


def _int_slots(ctx: Context, n: ast.AST) -> list[ast.AST | None]:
    """The expressions of ``n`` that must be Python ints: ``range`` bounds, shape arguments, slice bounds."""
    if isinstance(n, ast.Subscript):
        return [b for s in _slices(n.slice) for b in (s.lower, s.upper, s.step)]
    if not isinstance(n, ast.Call):
        return []
    q = ctx.info.resolve(n.func) or ""
    if q == "range" and isinstance(n.func, ast.Name):
        return list(n.args)
    if q in _SHAPE_ARGS:
        positions, keywords = _SHAPE_ARGS[q]
        return [n.args[i] for i in positions if i < len(n.args)] + [k.value for k in n.keywords if k.arg in keywords]
    if isinstance(n.func, ast.Attribute) and n.func.attr == "reshape":
        return list(n.args)
    return []


def _is_count(e: ast.AST | None, attr: str, aliases: set[str]) -> bool:
    parts = e.elts if isinstance(e, (ast.Tuple, ast.List)) else [e]
    return any(_is_attr(p, attr) or (isinstance(p, ast.Name) and p.id in aliases) for p in parts)


def _is_attr(node: ast.AST | None, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"
