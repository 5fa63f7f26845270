"""What dtype JAX gives a value, where the source alone says so: a small lattice of JAX's type promotion.

A dtype here is ``(name, weak)``. Python scalars are weakly typed (``1`` is a weak int, ``1.0`` a weak
float; ``True`` is a strong ``bool``); ``jnp.int16(0)``, ``jnp.zeros(n, jnp.int16)``, ``x.astype(jnp.int8)``
are strong. Binary arithmetic follows JAX's promotion lattice (https://docs.jax.dev/en/latest/type_promotion.html):
a weak operand takes the other operand's dtype when its kind fits (weak int with any int or float, weak float
with any float), two strong ints promote to the wider, any int with a float gives the float. Everything the
lattice would answer only with ``jax_enable_x64`` known (64-bit names, Python ``int``/``float`` as a dtype,
a weak float against an int array), or with unsigned/signed mixes, is unknown (``None``): callers report only
on what is known. tests/test_lint_carry_dtype.py checks the rows under real JAX.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

Dtype = tuple[str, bool]  # (name, weak)

_SIGNED = ("int8", "int16", "int32")
_UNSIGNED = ("uint8", "uint16", "uint32")
_FLOATS = ("float16", "bfloat16", "float32")
# names whose dtype is the same with or without x64 (64-bit ones become 32-bit without it: unknown here)
KNOWN = frozenset(_SIGNED + _UNSIGNED + _FLOATS + ("bool", "complex64"))
_ALIASES = {"bool_": "bool"}
# constructors with their positional index of `dtype`
_CONSTRUCTORS = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1, "zeros_like": 1,
                 "ones_like": 1, "full_like": 2, "empty_like": 1}
_CONVERT = frozenset({"jax.numpy.astype", "jax.lax.convert_element_type"})
_AT_METHODS = frozenset({"set", "add", "multiply", "mul", "min", "max", "apply", "divide", "power"})
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor)
_MODULES = ("jax.numpy.", "numpy.")


def dtype_name(node: ast.AST | None, resolve: Callable[[ast.AST], str | None]) -> str | None:
    """The dtype a dtype argument names (``jnp.int16``, ``np.int16``, ``"int16"``) when x64 cannot change it."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value
    elif isinstance(node, ast.Name) and node.id == "bool":
        name = "bool"
    else:
        q = resolve(node) or ""
        mod = next((m for m in _MODULES if q.startswith(m)), None)
        if mod is None:
            return None
        name = q[len(mod):]
    name = _ALIASES.get(name, name)
    return name if name in KNOWN else None


def promote(a: Dtype | None, b: Dtype | None) -> Dtype | None:
    """JAX's result dtype of ``a op b`` for arithmetic, or None where x64 or an unmodelled pair decides."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    (na, wa), (nb, wb) = a, b
    if wa and wb:  # two Python scalars: int with float is a weak float
        return ("float", True) if {na, nb} == {"int", "float"} else None
    if wa or wb:
        (w, _), (s, _) = (a, b) if wa else (b, a)
        strong = b if wa else a
        if w == "int" and (s in _SIGNED or s in _UNSIGNED or s in _FLOATS or s == "complex64"):
            return strong
        if w == "float" and (s in _FLOATS or s == "complex64"):
            return strong
        return None
    if na == "bool" or nb == "bool":
        return b if na == "bool" else a
    for fam in (_SIGNED, _UNSIGNED):
        if na in fam and nb in fam:
            return (max(na, nb, key=fam.index), False)
    if (na in _SIGNED or na in _UNSIGNED) and nb in _FLOATS:
        return b
    if (nb in _SIGNED or nb in _UNSIGNED) and na in _FLOATS:
        return a
    if {na, nb} in ({"float16", "float32"}, {"bfloat16", "float32"}):
        return ("float32", False)
    return None


class DtypeOf:
    """The dtype of expressions of one function: its simple assignments and the names given on entry."""

    def __init__(self, fn: ast.AST | None, resolve: Callable[[ast.AST], str | None],
                 given: dict[str, Dtype | None] | None = None, before: int | None = None) -> None:
        """``before``: a line of ``fn`` reached once per call, outside any loop: a name then has the value of its
        last assignment above that line when every assignment above it is a statement of the body itself."""
        self.resolve = resolve
        self.given = dict(given or {})
        self.before = before
        # name -> (value or None where unknown, assigned by a top-level statement of the body, line)
        self.assigned: dict[str, list[tuple[ast.AST | None, bool, int]]] = {}
        body = getattr(fn, "body", None)
        if isinstance(body, list):
            top = {id(s) for s in body}
            for n in _own_nodes(body):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        self._bind(t, n.value if isinstance(t, ast.Name) else None, id(n) in top, n.lineno)
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
                    self._bind(n.target, None, False, n.lineno)
                elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                    self._bind(n.optional_vars, None, False, n.optional_vars.lineno)
        self._busy: set[str] = set()

    def _bind(self, target: ast.AST, value: ast.AST | None, top: bool, line: int) -> None:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                self.assigned.setdefault(sub.id, []).append((value, top, line))

    def name(self, name: str) -> Dtype | None:
        binds = self.assigned.get(name)
        if not binds:
            return self.given.get(name)
        if name in self.given or name in self._busy:  # a parameter rebound, or a recursive definition
            return None
        if self.before is not None:
            above = sorted((b for b in binds if b[2] < self.before), key=lambda b: b[2])
            if not above or not all(b[1] for b in above):
                return None
            binds = above[-1:]
        self._busy.add(name)
        try:
            out = {None if v is None else self(v) for v, _, _ in binds}
        finally:
            self._busy.discard(name)
        return out.pop() if len(out) == 1 else None

    def __call__(self, node: ast.AST) -> Dtype | None:  # noqa: C901 - one case per expression form
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return ("bool", False)
            if isinstance(v, int):
                return ("int", True)
            if isinstance(v, float):
                return ("float", True)
            return None
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH):
            return promote(self(node.left), self(node.right))
        if isinstance(node, ast.Subscript):  # indexing keeps an array's dtype
            d = self(node.value)
            return d if d is not None and not d[1] else None
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> Dtype | None:
        func = node.func
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        if isinstance(func, ast.Attribute):
            if func.attr == "astype" and len(node.args) == 1:
                d = dtype_name(node.args[0], self.resolve)
                return (d, False) if d else None
            at = func.value
            if (func.attr in _AT_METHODS and isinstance(at, ast.Subscript) and isinstance(at.value, ast.Attribute)
                    and at.value.attr == "at"):
                d = self(at.value.value)  # x.at[i].set(v) has x's dtype
                return d if d is not None and not d[1] else None
        q = self.resolve(func) or ""
        if not q.startswith("jax.numpy.") and q not in _CONVERT:
            return None
        short = q.rsplit(".", 1)[1]
        if q in _CONVERT:
            d = dtype_name(node.args[1] if len(node.args) > 1 else kw.get("dtype", kw.get("new_dtype")), self.resolve)
            return (d, False) if d else None
        if short in _CONSTRUCTORS:
            i = _CONSTRUCTORS[short]
            arg = kw.get("dtype", node.args[i] if len(node.args) > i else None)
            d = dtype_name(arg, self.resolve)
            return (d, False) if d else None
        if short == "where" and len(node.args) == 3:
            return promote(self(node.args[1]), self(node.args[2]))
        d = dtype_name(func, self.resolve)  # jnp.int16(0): a scalar constructor
        return (d, False) if d and len(node.args) == 1 else None


def _own_nodes(body: list[ast.stmt]):
    """The nodes of a function body, not those of functions, lambdas or classes defined in it."""
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(c)


# Without x64 a Python int meeting a JAX array (an operand, a jnp argument) becomes a weak int32 first, whatever
# the other side's dtype: outside this range JAX raises OverflowError, under jit and eagerly alike
# (`jnp.float32(1) * 2**31` too; tests/test_lint_int32_overflow.py).
INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
_FOLD = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.LShift: int.__lshift__,
         ast.Pow: int.__pow__}


def python_int(node: ast.AST, resolve: Callable[[ast.AST], str | None] | None = None) -> int | None:
    """The value of a Python int the source spells out: ``10**10``, ``1 << 40``, ``-(2**31)``, ``int(1e10)``."""
    if isinstance(node, ast.Constant):
        v = node.value
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = python_int(node.operand, resolve)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLD:
        b = python_int(node.right, resolve)  # the right side first: a long chain `x + y + ...` stops at once
        a = None if b is None else python_int(node.left, resolve)
        if a is None or b is None or (isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= b <= 128):
            return None
        return _FOLD[type(node.op)](a, b)
    if resolve is not None and isinstance(node, ast.Attribute):
        return _named_int(node, resolve)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, float) and abs(node.args[0].value) < 1e300):
        return int(node.args[0].value)
    return None


_INT_RANGES = {"int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "int32": (-(2**31), 2**31 - 1),
               "int64": (-(2**63), 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
               "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def _named_int(node: ast.Attribute, resolve: Callable[[ast.AST], str | None]) -> int | None:
    """``sys.maxsize``, and ``np.iinfo(np.int64).max`` / ``.min`` of a named integer type."""
    if resolve(node) == "sys.maxsize":
        return 2**63 - 1
    call = node.value
    if node.attr in ("max", "min") and isinstance(call, ast.Call) and len(call.args) == 1 \
            and (resolve(call.func) or "") in ("numpy.iinfo", "jax.numpy.iinfo"):
        a = call.args[0]
        name = a.value if isinstance(a, ast.Constant) else (resolve(a) or "").rsplit(".", 1)[-1]
        bounds = _INT_RANGES.get(name) if isinstance(name, str) else None
        if bounds is not None:
            return bounds[1] if node.attr == "max" else bounds[0]
    return None


def int_range(name: str | None) -> tuple[int, int] | None:
    """The values an integer dtype holds (``"int8"`` -> ``(-128, 127)``), None for another dtype."""
    return _INT_RANGES.get(name or "")


def wrapped(value: int, name: str) -> int:
    """What ``value`` becomes when stored in the integer dtype ``name`` without a check (two's complement)."""
    lo, hi = _INT_RANGES[name]
    span = hi - lo + 1
    return (value - lo) % span + lo


# the largest finite value of each float type narrower than float64 (`jnp.finfo(t).max`)
FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}


def python_float(node: ast.AST) -> float | None:
    """The value of a float literal the source spells out (``1e100``, ``-1e100``), None for anything else."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = python_float(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return node.value
    return None


# the smallest magnitude certain to become ``inf`` when a Python float is stored in each type: the conversion rounds
# to nearest, so values up to half a unit in the last place above the largest value round down to it
# (``jnp.float32(3.4028235e38)``, the printed float32 max, is finite). bfloat16 rounds through float32 first, so its
# bound is the midpoint itself (ties go to the even neighbour, inf); a few values just below it become inf too.
FLOAT_INF_AT = {"float16": 65520.0, "bfloat16": (2 - 2**-8) * 2.0**127,
                "float32": FLOAT_MAX["float32"] + 2.0**103}


def beyond_float(value: float | None, name: str) -> bool:
    """Finite, but too large for the float type ``name``: stored there it becomes ``inf`` (``FLOAT_INF_AT``)."""
    return value is not None and value - value == 0 and abs(value) >= FLOAT_INF_AT[name]


def beyond_int32(value: int | None) -> bool:
    return value is not None and not INT32_MIN <= value <= INT32_MAX
