"""Compare outputs of two ways of computing the same thing (jit vs eager, variant vs variant).

XLA may fuse, contract (FMA) or reorder reductions under jit, so floating-point outputs can
differ in the last bits. A difference is reported only beyond the dtype's tolerance; a NaN or
infinity on one side only is always reported (equal infinities and NaN in both are equal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._serde import Record

# (rtol, atol) per dtype: loose enough for fusion / FMA / reduction order, tight enough to catch real changes.
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
    # None once saved when the error was inf or NaN (JSON has neither): renderers show "n/a"
    max_abs_error: float | None = 0.0
    max_rel_error: float | None = 0.0
    rtol: float = 0.0
    atol: float = 0.0
    detail: str = ""
    leaves: list[str] = field(default_factory=list)  # paths of leaves beyond tolerance

    @property
    def ok(self) -> bool:
        return self.status == "equal"


def compare_outputs(reference: Any, candidate: Any, reference_name: str = "reference",
                    candidate_name: str = "candidate") -> NumericDiff:
    """Compare two output pytrees (arrays or scalars) with per-dtype tolerance.

    Floating leaves (float16, bfloat16, float32/64, complex) are compared in float64/complex128
    with ``TOLERANCE[dtype]``; other leaves must be equal bit for bit.
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    diff = NumericDiff(reference_name, candidate_name)
    ref_flat, ref_tree = jax.tree_util.tree_flatten_with_path(reference)
    cand_flat, cand_tree = jax.tree_util.tree_flatten_with_path(candidate)
    if ref_tree != cand_tree:
        diff.status, diff.detail = "mismatch", f"output structure {ref_tree} vs {cand_tree}"
        return diff
    notes: list[str] = []
    dtypes: list[str] = []
    for (path, a), (_, b) in zip(ref_flat, cand_flat):
        name = jax.tree_util.keystr(path) or "output"
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            diff.status, diff.detail = "mismatch", f"{name}: shape {a.shape} vs {b.shape}"
            return diff
        if a.dtype != b.dtype:
            diff.status, diff.detail = "mismatch", f"{name}: dtype {a.dtype} vs {b.dtype}"
            return diff
        if not jnp.issubdtype(a.dtype, jnp.inexact):
            if not np.array_equal(a, b):
                diff.status = "differs"
                diff.leaves.append(name)
                notes.append(f"{name}: {int(np.sum(a != b))} of {a.size} elements differ ({a.dtype})")
            continue
        if _compare_leaf(diff, name, a, b, notes):
            diff.status = "differs"
            diff.leaves.append(name)
            dtypes.append(str(a.dtype))
    if diff.status == "differs":
        if dtypes:
            notes.append(f"max abs error {diff.max_abs_error:.3g}, max rel error {diff.max_rel_error:.3g} "
                         f"in {', '.join(dict.fromkeys(dtypes))} (tolerance rtol={diff.rtol:g}, atol={diff.atol:g})")
        diff.detail = "; ".join(notes)
    return diff


def _compare_leaf(diff: NumericDiff, name: str, a: Any, b: Any, notes: list[str]) -> bool:
    """Compare one floating leaf; update the diff's errors; True when it differs beyond tolerance."""
    import jax.numpy as jnp
    import numpy as np

    rtol, atol = TOLERANCE.get(str(a.dtype), (1e-5, 1e-6))
    diff.rtol, diff.atol = max(diff.rtol, rtol), max(diff.atol, atol)
    wide = np.complex128 if jnp.issubdtype(a.dtype, jnp.complexfloating) else np.float64
    a64, b64 = a.astype(np.float32).astype(wide) if a.dtype.itemsize < 4 else a.astype(wide), (
        b.astype(np.float32).astype(wide) if b.dtype.itemsize < 4 else b.astype(wide))
    same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))  # equal infinities, NaN on both sides
    one_sided = ~same & ~(np.isfinite(a64) & np.isfinite(b64))
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(same | one_sided, 0.0, np.abs(a64 - b64))
        rel = err / np.maximum(np.abs(a64), np.finfo(np.float64).tiny)
    if err.size:
        big = np.finfo(np.float64).max  # keep the JSON finite when a float64 difference overflows
        diff.max_abs_error = max(diff.max_abs_error, min(float(np.max(err)), big))
        diff.max_rel_error = max(diff.max_rel_error, min(float(np.max(np.where(err == 0, 0.0, rel))), big))
    if one_sided.any():
        idx = tuple(int(i) for i in np.argwhere(one_sided)[0])
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        notes.append(f"{name}: {int(one_sided.sum())} of {a.size} elements are NaN or inf on one side only "
                     f"(e.g. {name}{where}: {diff.reference}={a64[idx].item()}, {diff.candidate}={b64[idx].item()})")
    bad = one_sided | ~(err <= atol + rtol * np.abs(np.where(np.isfinite(a64), a64, 0)))
    return bool(bad.any())
