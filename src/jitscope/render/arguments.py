"""A call's arguments as every report shows them: pytrees by structure (``analyze/pytree_summary.py``),
the full leaf list left to the JSON (console) or folded under the summary (HTML)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..analyze.pytree_summary import folds_leaves, leaf_list, summarise, summarise_typed

if TYPE_CHECKING:
    from ..analyze.jaxpr_stats import JaxprStats
    from ..model import ArgSignature

__all__ = ["arguments", "folded_leaves_note", "jaxpr_inputs", "leaf_list"]


def arguments(signature: ArgSignature | None) -> str:
    """``model=MLP(layers=[6 x Linear(weight=f32[32,32], bias=f32[32])]), x=f32[16,32]``; "" for none."""
    return summarise(signature)


def folded_leaves_note(signature: ArgSignature | None) -> str:
    """``12 leaves summarised by structure; --json lists each`` where the summary folds leaves, else ""."""
    if not folds_leaves(signature):
        return ""
    n = len(leaf_list(signature))
    return f"{n} leaves summarised by structure; --json lists each"


def jaxpr_inputs(jaxpr: JaxprStats, signature: ArgSignature | None) -> str:
    """A jaxpr's inputs (``path: type`` each) summarised like the call's arguments."""
    pairs = [tuple(s.split(": ", 1)) if ": " in s else ("", s) for s in jaxpr.inputs]
    if any(not path for path, _ in pairs):
        return ", ".join(jaxpr.inputs)
    return summarise_typed(pairs, signature.treedef if signature is not None else "")  # type: ignore[arg-type]
