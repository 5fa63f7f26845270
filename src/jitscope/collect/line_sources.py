"""The pre-optimisation HLO with its source locations, for the per-line compile cost.

``Lowered.as_text(dialect="hlo", debug_info=True)`` prints XLA's stack frame tables
(``FileNames``, ``FunctionNames``, ``FileLocations``, ``StackFrames``) and a
``stack_frame_id`` on each instruction; the plain text ``collect.lowering`` keeps has neither.
"""

from __future__ import annotations

from typing import Any


def hlo_with_locations(lowered: Any) -> str:
    """The HLO before optimisation with source metadata; "" when this JAX cannot print it."""
    if lowered is None:
        return ""
    try:
        return lowered.as_text(dialect="hlo", debug_info=True) or ""
    except Exception:  # noqa: BLE001 - an older JAX without debug_info: the estimate falls back to equations
        return ""
