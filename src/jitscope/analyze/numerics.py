"""Compare outputs of two ways of computing the same thing (jit vs eager, variant vs variant).

XLA may reassociate or simplify floating point under jit (seed 002: ``x + y - x``), so
outputs can differ. A difference is reported only beyond the dtype's tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._serde import Record

# (rtol, atol) per dtype kind: loose enough for reassociation, tight enough to catch real changes.
TOLERANCE = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (5e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-12, 1e-14),
}


@dataclass
class NumericDiff(Record):
    """How ``candidate`` differs from ``reference``, leaf by leaf.

    ``status`` is ``"equal"`` (within tolerance), ``"differs"`` (values beyond tolerance) or
    ``"mismatch"`` (different tree structure, shape or dtype; ``detail`` says which).
    """

    reference: str
    candidate: str
    status: str = "equal"
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    rtol: float = 0.0
    atol: float = 0.0
    detail: str = ""
    leaves: list[str] = field(default_factory=list)  # paths of leaves beyond tolerance

    @property
    def ok(self) -> bool:
        return self.status == "equal"


def compare_outputs(reference: Any, candidate: Any, reference_name: str = "reference",
                    candidate_name: str = "candidate") -> NumericDiff:
    """Compare two output pytrees (arrays or scalars) with per-dtype tolerance."""
    import jax
    import numpy as np

    diff = NumericDiff(reference_name, candidate_name)
    ref_flat, ref_tree = jax.tree_util.tree_flatten_with_path(reference)
    cand_flat, cand_tree = jax.tree_util.tree_flatten_with_path(candidate)
    if ref_tree != cand_tree:
        diff.status, diff.detail = "mismatch", f"output structure {ref_tree} vs {cand_tree}"
        return diff
    for (path, a), (_, b) in zip(ref_flat, cand_flat):
        name = jax.tree_util.keystr(path) or "output"
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            diff.status, diff.detail = "mismatch", f"{name}: shape {a.shape} vs {b.shape}"
            return diff
        if a.dtype != b.dtype:
            diff.status, diff.detail = "mismatch", f"{name}: dtype {a.dtype} vs {b.dtype}"
            return diff
        if a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                diff.status = "differs"
                diff.leaves.append(name)
                n = int(np.sum(a != b))
                diff.detail = diff.detail or f"{name}: {n} of {a.size} elements differ"
            continue
        rtol, atol = TOLERANCE.get(str(a.dtype), (1e-5, 1e-6))
        diff.rtol, diff.atol = max(diff.rtol, rtol), max(diff.atol, atol)
        a64, b64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), b.astype(
            np.complex128 if b.dtype.kind == "c" else np.float64)
        both_nan = np.isnan(a64) & np.isnan(b64)
        err = np.where(both_nan, 0.0, np.abs(a64 - b64))
        rel = err / np.maximum(np.abs(a64), np.finfo(np.float64).tiny)
        if err.size:
            diff.max_abs_error = max(diff.max_abs_error, float(np.nanmax(err)))
            diff.max_rel_error = max(diff.max_rel_error, float(np.nanmax(np.where(err == 0, 0.0, rel))))
        bad = ~(err <= atol + rtol * np.abs(a64))
        if bad.any():
            diff.status = "differs"
            diff.leaves.append(name)
    if diff.status == "differs" and not diff.detail:
        diff.detail = (f"max abs error {diff.max_abs_error:.3g}, max rel error {diff.max_rel_error:.3g} "
                       f"(tolerance rtol={diff.rtol:g}, atol={diff.atol:g})")
    return diff
