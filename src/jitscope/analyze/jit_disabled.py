"""JW509: ``jax_disable_jit`` left on (``collect/jit_disabled``): every jitted function ran op by op, eagerly.

Certain (JAX's own flag was on at the end of the run); ``warning``: it can be a deliberate debugging run, but a
run that measures or trains with it on pays one dispatch (and a first-time compile) per operation.
"""

from __future__ import annotations

from typing import Any

from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source


def jit_disabled_findings(probe: Any, user_compiles: int) -> list[RuntimeFinding]:
    """One JW509 when the flag was on at the end of the run."""
    if probe is None:
        return []
    probe.read_end()
    if not probe.on_at_end:
        return []
    loc = probe.location
    where = f" (named at line {loc.line})" if loc else ""
    return [RuntimeFinding(
        "JW509", "<module>",
        f"jax_disable_jit was on at the end of the run{where}: every jax.jit ran its function op by op, eagerly "
        f"({user_compiles} compile{'s' if user_compiles != 1 else ''} of the program's jitted functions)",
        "warning", loc, Fix(fixes.JIT_DISABLED.title, fixes.JIT_DISABLED.why, location=loc), source=_source(loc),
        details={"on_at_start": probe.on_at_start, "on_at_end": True, "user_compiles": user_compiles,
                 "evidence": "jax.config.jax_disable_jit read when the run ended"},
        confidence="certain")]
