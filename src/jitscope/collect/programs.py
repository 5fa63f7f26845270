"""Programs JAX compiles from the user's code outside the user's ``jit`` call.

The capture engine (``monitoring.py``) joins a compile to the jitted call that traced it. Some
programs have no such call: JAX builds them later from the jaxpr of a jitted function, or wraps
the user's functions in a program of its own:

* the backward (transpose) program of ``grad``/``value_and_grad``/``vjp`` of a jitted function,
  compiled when the cotangent is pulled back; ``checkpoint``'s rematerialised forward; the
  tangent program of ``linearize``; the batched programs of ``vmap`` of those;
* eager ``lax.cond`` / ``switch`` / ``while_loop`` / ``fori_loop`` / ``scan`` with user bodies:
  JAX jits one control-flow primitive (``jit(cond)``, ``jit(while)``, ``jit(scan)``);
* ``jax.pmap``, which jits a wrapper of its own around the user's function (``_jaxcompat.pmap_user_call``,
  handled where the call is seen, in ``monitoring._record_from_call``).

For the first two the lowered program says where it came from (``_jaxcompat.program_source``):
this module turns that into the user's record. A derived program is attributed to the jitted
function it was built from (name, definition, ``function_id`` and bindings as that function's own
compiles have them, when watch saw it called), with ``transform`` naming its role (``backward``,
``remat``, ``vmap``, ``derived``; ``#2``, ``#3`` for further programs of the same role since that
function's last compile from a call, e.g. the two backward programs of ``grad(checkpoint(jit(f)))``),
its signature the program's input types plus the static values and jit options of the latest call of
that function watch saw (the forward call it derives from, unless the program calls the function again
before pulling a ``vjp`` back): a backward program compiled again for a new static value names it. An eager control-flow program is attributed to the
primitive the user called (``function`` = ``cond``, ``while`` or ``scan``; JAX lowers ``switch``
to ``cond`` and ``fori_loop`` to ``scan`` or ``while``), defined at its first user body, with the
user's body functions in ``bindings`` and the user's line as call site.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from .. import _jaxcompat as compat
from ..model import ArgSignature, LeafSpec, Location
from . import watch_signature as sig

# (JAX's function name, file, first line) -> what watch's own records of that function say:
# (qualified name, function_id, definition, bindings). Filled by the engine for user calls.
_KNOWN_LIMIT = 4096
known_functions: dict[tuple[str, str, int], tuple[str, int | None, Location | None, str | None]] = {}
# The same key -> the static values and jit options of that function's latest call (``ArgSignature.static``,
# ``.options``): a derived program inherits them, so that a backward program compiled again because a
# static argument changed says so instead of "same signature".
known_static: dict[tuple[str, str, int], tuple[dict[str, str], dict[str, str]]] = {}


def remember(fun: Any, function: str, function_id: int | None, definition: Location | None,
             bindings: str | None, signature: ArgSignature | None = None) -> None:
    """Note a user's jitted function as JAX's debug info will name it (``__name__``, file, first line)."""
    f = sig.unwrap_function(fun)
    code = getattr(f, "__code__", None)
    if code is None:
        return
    key = (str(getattr(f, "__name__", "")), code.co_filename, code.co_firstlineno)
    if key not in known_functions and len(known_functions) >= _KNOWN_LIMIT:
        known_static.pop(next(iter(known_functions)), None)
        known_functions.pop(next(iter(known_functions)))
    known_functions[key] = (function, function_id, definition, bindings)
    if signature is not None:
        known_static[key] = (dict(signature.static), dict(signature.options))


def _signature(avals: tuple) -> ArgSignature | None:
    leaves = []
    for i, aval in enumerate(avals):
        if aval is None or not hasattr(aval, "shape"):
            return None
        leaf = LeafSpec.of(f"arg{i}", aval)
        leaves.append(dataclasses.replace(leaf, weak_type=bool(getattr(aval, "weak_type", False))))
    return ArgSignature(tuple(leaves), {}, f"args: ({', '.join('*' for _ in leaves)})")


def attribute(raw: Any, closed_jaxpr: Any, role_counts: dict[tuple, int]) -> bool:
    """Make ``raw`` (an internal record of this program) the user's record when the program is built
    from the user's code; ``role_counts`` numbers derived programs per function and role. Returns
    whether it did."""
    src = compat.program_source(closed_jaxpr, known=known_functions.__contains__)
    if src is None:
        return False
    raw.user = True
    raw.call_site, raw.library_site = sig.call_sites(sys._getframe(1))
    raw.signature = _signature(src.in_avals)
    if src.primitive is not None:
        raw.function = src.primitive
        raw.definition = Location(src.file, src.line, function=src.bodies[0][0])
        raw.bindings = "bodies: " + ", ".join(f"{n}@{f}:{ln}" for n, f, ln in src.bodies)
        raw.function_id = None
        return True
    key = (src.function, src.file, src.line)
    function, function_id, definition, bindings = known_functions.get(
        key, (src.function, None, Location(src.file, src.line, function=src.function), None))
    raw.function, raw.function_id, raw.definition, raw.bindings = function, function_id, definition, bindings
    if raw.signature is not None and key in known_static:
        static, options = known_static[key]
        raw.signature = dataclasses.replace(raw.signature, static=dict(static), options=dict(options))
    role = compat.derived_program_role(sys._getframe(1))
    n = role_counts.get((key, role), 0) + 1
    role_counts[(key, role)] = n
    raw.transform = role if n == 1 else f"{role} #{n}"
    raw.transformed = raw.transform_derived = True
    return True
