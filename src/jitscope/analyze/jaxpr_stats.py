"""What a traced program is made of: equations by primitive, nested bodies, captured values.

Pure functions over a ``ClosedJaxpr`` (from ``jax.jit(f).trace(...).jaxpr``) and the user's
function object. Nested bodies (scan / while / cond / jit / custom_jvp / custom_vjp / remat) are
found through ``_jaxcompat.jaxprs_in_params`` (never ``jax.extend``, whose import makes JAX recompile
on 0.12: docs/watch.md "jitscope changes nothing JAX does"); a body shared by several
equations (the same inner jit called in a loop) is walked once and counted per use.

Captured values (seed 002): jit bakes every value the function reads from module globals or
closures into the compiled program. Arrays show up as jaxpr constants; Python scalars as
literals. A value is attributed to a global or closure name by identity (jax arrays), by
value (numpy arrays, which JAX copies, and scalars). Functions of the same module that the
traced function calls are followed (a few levels deep), so a helper's global is named too.
"""

from __future__ import annotations

import dis
import numbers
import types
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .._jaxcompat import jaxprs_in_params
from .._pycode import code_objects, functions_reached
from .._serde import Record
from ..model import Location


@dataclass
class NestedBody(Record):
    """A sub-jaxpr held by one equation (a scan body, a cond branch, an inner jit)."""

    primitive: str
    path: str  # e.g. "scan" or "jit/cond"
    equations: int
    uses: int = 1


@dataclass
class CapturedValue(Record):
    """A value read from a global or closure while tracing, baked into the compiled function."""

    name: str
    source: str  # "global" | "closure"
    kind: str  # "array" (a jaxpr constant) | "scalar" (a literal or Python-level constant)
    type: str  # e.g. "float", "f32[6400]"
    value: str  # short repr of the value seen at trace time
    bytes: int = 0
    in_jaxpr: bool = False  # found among the jaxpr's constants / literals
    location: Location | None = None  # where the traced code reads the name


@dataclass
class JaxprStats(Record):
    """Counts over a whole traced program."""

    equations: int = 0  # every equation, nested bodies included (per use)
    top_level_equations: int = 0
    by_primitive: dict[str, int] = field(default_factory=dict)
    nested: list[NestedBody] = field(default_factory=list)
    constants: int = 0
    constant_bytes: int = 0
    captured: list[CapturedValue] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    weak_typed_inputs: list[str] = field(default_factory=list)


def _aval_str(aval: Any) -> str:
    try:
        return aval.str_short(short_dtypes=True)
    except Exception:  # noqa: BLE001 - tokens and exotic avals
        return str(aval)


def _nbytes(value: Any) -> int:
    n = getattr(value, "nbytes", None)
    return int(n) if isinstance(n, (int, numbers.Integral)) else 0


def walk_bodies(jaxpr: Any):
    """Yield ``(path, jaxpr, uses)`` for the top-level jaxpr and every distinct nested body."""

    counts: dict[int, int] = {}
    order: list[tuple[str, Any]] = []
    stack = [("", jaxpr, 1)]
    while stack:
        path, jx, uses = stack.pop()
        if id(jx) in counts:
            counts[id(jx)] += uses
            continue
        counts[id(jx)] = uses
        order.append((path, jx))
        for eqn in jx.eqns:
            for sub in jaxprs_in_params(eqn.params):
                name = eqn.primitive.name
                stack.append((f"{path}/{name}" if path else name, sub, uses))
    for path, jx in order:
        yield path, jx, counts[id(jx)]


def jaxpr_stats(closed_jaxpr: Any, arg_paths: list[str] | None = None) -> JaxprStats:
    """Equation counts (total, by primitive, nested bodies), constants and input avals."""
    jaxpr = closed_jaxpr.jaxpr
    stats = JaxprStats(top_level_equations=len(jaxpr.eqns))
    by_prim: Counter[str] = Counter()
    for path, jx, uses in walk_bodies(jaxpr):
        for eqn in jx.eqns:
            by_prim[eqn.primitive.name] += uses
        stats.equations += len(jx.eqns) * uses
        if path:
            stats.nested.append(NestedBody(path.rsplit("/", 1)[-1], path, len(jx.eqns), uses))
    stats.by_primitive = dict(by_prim.most_common())
    stats.constants = len(closed_jaxpr.consts)
    stats.constant_bytes = sum(_nbytes(c) for c in closed_jaxpr.consts)
    paths = arg_paths or []
    for i, var in enumerate(jaxpr.invars):
        label = paths[i] if i < len(paths) and paths[i] else f"arg{i}"
        short = _aval_str(var.aval)
        stats.inputs.append(f"{label}: {short}")
        if getattr(var.aval, "weak_type", False):
            stats.weak_typed_inputs.append(f"{label}: {short}")
    stats.outputs = [_aval_str(v.aval) for v in jaxpr.outvars]
    return stats


# --- captured globals and closures -----------------------------------------------------

def _is_data(value: Any) -> bool:
    import jax

    if isinstance(value, jax.core.Tracer):
        return False  # a value of a trace (a global the traced function itself assigned), never a constant
    if isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                          types.MethodType, str, bytes)) or value is None or callable(value):
        return False
    if isinstance(value, (bool, numbers.Number)):
        return True
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _describe(value: Any) -> tuple[str, str, str]:
    """(kind, type, short value) of a captured value."""
    if hasattr(value, "shape") and hasattr(value, "dtype") and getattr(value, "ndim", 0) > 0:
        from ..model import DTYPE_SHORT

        dt = DTYPE_SHORT.get(str(value.dtype), str(value.dtype))
        return "array", f"{dt}[{','.join(map(str, value.shape))}]", f"<{type(value).__name__}>"
    text = repr(value.item() if hasattr(value, "item") else value)
    return "scalar", type(value).__name__, text if len(text) <= 40 else text[:37] + "..."


def _first_load(code: types.CodeType, name: str, ops: tuple[str, ...]) -> int | None:
    for c in code_objects(code):
        for ins in dis.get_instructions(c):
            if ins.opname in ops and ins.argval == name:
                pos = getattr(ins, "positions", None)
                return getattr(pos, "lineno", None) or ins.starts_line
    return None


def _literal_values(closed_jaxpr: Any) -> list[Any]:
    from .._jaxcompat import is_literal

    vals = []
    for _, jx, _ in walk_bodies(closed_jaxpr.jaxpr):
        for eqn in jx.eqns:
            for v in eqn.invars:
                if is_literal(v):
                    vals.append(v.val)
    return vals


def _matches(value: Any, consts: list[Any], literals: list[Any]) -> bool:
    import numpy as np

    if any(c is value for c in consts):
        return True
    if hasattr(value, "shape") and getattr(value, "ndim", 0) > 0:
        arr = np.asarray(value)
        return any(getattr(c, "shape", None) == arr.shape and np.array_equal(np.asarray(c), arr) for c in consts)
    try:
        scalar = complex(value.item() if hasattr(value, "item") else value)
    except (TypeError, ValueError):
        return False
    for lit in literals + [c for c in consts if getattr(c, "ndim", 1) == 0]:
        try:
            if complex(np.asarray(lit).item()) == scalar:
                return True
        except (TypeError, ValueError):
            continue
    return False


def captured_values(fn: Any, closed_jaxpr: Any) -> list[CapturedValue]:
    """Module globals and closure cells holding data that ``fn`` (or a same-module helper) reads."""
    if not isinstance(fn, types.FunctionType):
        return []
    consts = list(closed_jaxpr.consts)
    literals = _literal_values(closed_jaxpr)
    out: list[CapturedValue] = []
    seen: set[tuple[str, str]] = set()
    for f in functions_reached(fn):
        code = f.__code__
        names = {n for c in code_objects(code) for n in c.co_names}
        candidates: list[tuple[str, str, Any, int | None]] = []
        for name in sorted(names):
            if name in f.__globals__ and _is_data(f.__globals__[name]):
                line = _first_load(code, name, ("LOAD_GLOBAL", "LOAD_NAME"))
                candidates.append(("global", name, f.__globals__[name], line))
        for name, cell in zip(code.co_freevars, f.__closure__ or (), strict=False):
            try:
                value = cell.cell_contents
            except ValueError:  # empty cell
                continue
            if _is_data(value):
                candidates.append(("closure", name, value, _first_load(code, name, ("LOAD_DEREF",))))
        for source, name, value, line in candidates:
            if (source, name) in seen:
                continue
            seen.add((source, name))
            kind, tname, short = _describe(value)
            loc = Location(code.co_filename, line, function=code.co_qualname) if line else None
            out.append(CapturedValue(name, source, kind, tname, short, _nbytes(value),
                                     _matches(value, consts, literals), loc))
    return out
