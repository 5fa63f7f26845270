"""How many bytes a module-level array holds, from its source (JS501's size model).

jit bakes a module-level array a traced function reads into the compiled program as a constant. What
that costs grows with its bytes: measured with real ``jax.jit`` on CPU (JAX 0.10.2, a float32
``jnp.arange`` table read by a jitted function, compile time of capture against passing it as an
argument, ``benchmarks/const_capture_cost.py``, medians of 5 on a shared machine, in
``benchmarks/RESULTS.md``): 6-14 ms (noise) up to 1 MiB, +84 ms at 4 MiB, +380 ms at 16 MiB, and the
lowered program's text grows by 2 characters a byte. So a table
below ``SMALL_BYTES`` is cheaper baked in than threaded through every call, and is not reported.

The size is known when the factory's arguments are literals, module-level literals
(``N = 64; jnp.zeros((N, N))``), or another module-level array of known size (``jnp.array(TABLE)``,
``np.array(MOVES)`` of a list literal); the item size from ``dtype=`` (a NumPy ``float64`` default
becomes float32 under jit with x64 off, so 4 bytes unless the dtype says otherwise).
"""

from __future__ import annotations

import ast
import math
import operator

SMALL_BYTES = 1 << 20
DEFAULT_ITEMSIZE = 4
ITEMSIZE = {
    "bool": 1, "bool_": 1, "int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "half": 2,
    "float32": 4, "int32": 4, "uint32": 4, "single": 4, "float": 4, "int": 4,
    "float64": 8, "int64": 8, "uint64": 8, "complex64": 8, "double": 8, "complex128": 16, "complex": 8,
}
_SHAPED = ("zeros", "ones", "empty", "full")
_DTYPE_POSITION = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1, "arange": 3,
                   "eye": 3, "identity": 1}


_INT_OPS = {ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub, ast.FloorDiv: operator.floordiv,
            ast.LShift: operator.lshift, ast.Pow: operator.pow}


def resolve_literal(node: ast.AST | None, literals: dict[str, ast.expr], depth: int = 0) -> object:
    """The Python value of a literal expression whose names are module-level literals (``(N, 2 * M)``), or
    raise ValueError."""
    if node is None or depth > 20:
        raise ValueError
    if isinstance(node, ast.Name):
        if node.id in literals:
            return resolve_literal(literals[node.id], literals, depth + 1)
        raise ValueError
    if isinstance(node, (ast.Tuple, ast.List)):
        return [resolve_literal(e, literals, depth + 1) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):  # `-R`
        v = resolve_literal(node.operand, literals, depth + 1)
        if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        raise ValueError
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        a, b = resolve_literal(node.left, literals, depth + 1), resolve_literal(node.right, literals, depth + 1)
        if isinstance(a, int) and isinstance(b, int) and (type(node.op) not in (ast.Pow, ast.LShift) or 0 <= b <= 64):
            return 0 if type(node.op) is ast.FloorDiv and b == 0 else _INT_OPS[type(node.op)](a, b)
        raise ValueError
    try:
        return ast.literal_eval(node)  # type: ignore[arg-type]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError from None


def _ints(node: ast.AST | None, literals: dict[str, ast.expr]) -> tuple[int, ...] | None:
    try:
        v = resolve_literal(node, literals)
    except ValueError:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, list) and all(isinstance(e, int) and not isinstance(e, bool) for e in v):
        return tuple(v)  # type: ignore[arg-type]
    return None


def _count(v: object) -> int:
    return sum(_count(e) for e in v) if isinstance(v, (list, tuple)) else 1


def elements(call: ast.Call, q: str, literals: dict[str, ast.expr], known: dict[str, int | None]) -> int | None:
    """Number of elements of ``jnp.zeros((7, N))``, ``np.arange(10)``, ``jnp.array([...])``,
    ``jnp.array(TABLE)`` (a module-level array of known size, or a list literal); None when not known."""
    fn = q.rpartition(".")[2]
    args = call.args
    shape_arg = args[0] if args else next((k.value for k in call.keywords if k.arg == "shape"), None)
    if fn in _SHAPED:
        if isinstance(shape_arg, ast.Tuple) and not shape_arg.elts:
            return 1
        dims = _ints(shape_arg, literals)
        return math.prod(dims) if dims else None
    if fn in ("array", "asarray") and args:
        a = args[0]
        if isinstance(a, ast.Name) and a.id in known:
            return known[a.id]
        try:
            return _count(resolve_literal(a, literals))
        except ValueError:
            return None
    if fn in ("arange", "eye", "identity", "linspace") and args:
        ints = [_ints(a, literals) for a in args[:2]]
        if not ints[0]:
            return None
        if fn == "arange":
            return max(0, ints[1][0] - ints[0][0]) if len(ints) > 1 and ints[1] else max(0, ints[0][0])
        if fn in ("eye", "identity"):
            return ints[0][0] * ints[0][0]
        num = _ints(args[2], literals) if len(args) > 2 else next(
            (_ints(k.value, literals) for k in call.keywords if k.arg == "num"), (50,))
        return num[0] if num else None
    return None


def itemsize(call: ast.Call, q: str, known: dict[str, int]) -> int:
    """Bytes per element: the ``dtype`` argument's, the source array's for ``jnp.array(TABLE)``, else 4."""
    fn = q.rpartition(".")[2]
    dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
    pos = _DTYPE_POSITION.get(fn)
    if dtype is None and pos is not None and len(call.args) > pos:
        dtype = call.args[pos]
    if dtype is not None:
        name = dtype.attr if isinstance(dtype, ast.Attribute) else dtype.id if isinstance(dtype, ast.Name) else (
            dtype.value if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str) else "")
        return ITEMSIZE.get(name, DEFAULT_ITEMSIZE)
    if fn in ("array", "asarray") and call.args and isinstance(call.args[0], ast.Name):
        return known.get(call.args[0].id, DEFAULT_ITEMSIZE)
    return DEFAULT_ITEMSIZE
