"""Seed 004: op-by-op dispatch vs one fused program, and jit's static shapes.

Part 1: ``fusion(a, b, c) = a + b - c``. Eagerly each primitive is its own small XLA
computation (compiled on first use, dispatched one by one, the intermediate ``a + b`` written
to memory); under jit the whole function is one program, and XLA fuses the add and the
subtract into one kernel. Measured with the compare engine (first call, steady state, backend
compiles counted with ``jax.monitoring``) and read with ``jitscope.inspect`` (the optimised HLO's
fusions and XLA's cost model, also for each eager primitive alone).

Part 2: ``x[x < 0]`` has a data-dependent shape, so ``jit(get_negatives)`` fails to trace; the
error is explained by ``jitscope.inspect`` (``analyze.tracer_errors``) and the static-shape fix
``jnp.where(x < 0, x, 0).sum()`` under jit is measured against the eager boolean mask.
"""

from __future__ import annotations

import os
import time
from typing import Any

from .._format import fmt_seconds
from ..results.demo import CaseStudy, Column
from . import ARTICLES
from ._common import budget, first, is_apart, steady, versus

NAME = "fusion"
TITLE = "a + b - c: op-by-op dispatch vs one fused program; static shapes"
SEED = ARTICLES[4]  # 004_ca514a07a25e66bc.txt
PUBLISHED = "two separate computations eagerly, one fused computation under jit; x[x<0] fails under jit"


def fusion(a: Any, b: Any, c: Any) -> Any:
    """The seed's function."""
    return a + b - c


def add(a: Any, b: Any) -> Any:
    """The first primitive of ``fusion`` alone (what eager mode runs as its own computation)."""
    return a + b


def subtract(t: Any, c: Any) -> Any:
    """The second primitive of ``fusion`` alone."""
    return t - c


def get_negatives(x: Any) -> Any:
    """Sum of the negative entries by boolean mask (the seed's ``x[x < 0]``): works eagerly, not under jit."""
    return x[x < 0].sum()


def sum_negatives_where(x: Any) -> Any:
    """The static-shape fix: keep every element, zero the others."""
    import jax.numpy as jnp

    return jnp.where(x < 0, x, 0).sum()


def size(quick: bool) -> int:
    """Elements per array: 4M (4,194,304) float32, 256k with --quick."""
    return 1 << 18 if quick else 1 << 22


def make_inputs(n: int, seed: int = 4) -> tuple[Any, Any, Any]:
    """Three float32 standard normal arrays of ``n`` elements."""
    import jax
    import jax.numpy as jnp

    keys = jax.random.split(jax.random.PRNGKey(seed), 3)
    return tuple(jax.random.normal(k, (n,), jnp.float32) for k in keys)  # type: ignore[return-value]


def _mib(n: float | None) -> str:
    return "?" if n is None else f"{n / 2**20:.1f} MiB"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def fused_program(a: Any, b: Any, c: Any) -> dict[str, Any]:
    """``jitscope.inspect`` of ``jit(fusion)`` and of each primitive alone: fusions, ops, bytes accessed."""
    import jax

    from .._inspect import inspect

    res = inspect(jax.jit(fusion), a, b, c, run=False, side_effects=False, numerics=False,
                  target=f"{__name__}:fusion")
    if res.status != "ok" or res.hlo is None:
        raise RuntimeError(f"inspect(jit(fusion)) failed: {res.status} {res.stage_errors}")
    h = res.hlo
    parts = [inspect(jax.jit(fn), *xs, run=False, side_effects=False, numerics=False).hlo
             for fn, xs in ((add, (a, b)), (subtract, (a, c)))]
    eager_bytes = (None if any(p is None or p.bytes_accessed is None for p in parts)
                   else sum(p.bytes_accessed for p in parts))  # type: ignore[union-attr,misc]
    return {"primitives": res.jaxpr.equations if res.jaxpr else None, "fusions": h.fusion_count,
            "fused_ops": h.fused_ops, "fusion_ops": ["+".join(f.by_op) for f in h.fusions],
            "ops_outside_fusions": h.hlo_after_ops, "bytes_jit": h.bytes_accessed, "bytes_eager": eager_bytes}


def static_shapes(x: Any) -> dict[str, Any]:
    """The explained tracer error of ``jit(get_negatives)`` (``jitscope.inspect``), or None if it traced."""
    import jax

    from .._inspect import inspect

    res = inspect(jax.jit(get_negatives), x, run=False, side_effects=False, numerics=False,
                  target=f"{__name__}:get_negatives")
    err = next((f for f in res.findings if f.code in ("tracer-error", "trace-failed")), None)
    if err is None:
        return {"status": res.status, "error_class": None}
    loc = err.location
    return {"status": res.status, "error_class": err.details.get("error"), "message": err.message,
            "where": f"{os.path.basename(loc.file)}:{loc.line}" if loc else "?",
            "source": err.details.get("source", ""), "fix": err.fix.title if err.fix else "",
            "fix_text": err.fix.description if err.fix else ""}


def run(quick: bool = False) -> CaseStudy:
    """Measure both parts; the lesson quotes compiles, fusions, bytes, the error class and the ratios."""
    import jax
    import numpy as np

    from .._compare import compare, run_compare

    t0 = time.perf_counter()
    b = budget(quick)
    n = size(quick)
    a, bb, c = make_inputs(n)
    r = compare({"eager": fusion, "jit(fusion)": jax.jit(fusion)}, (a, bb, c), sample_seconds=b.budget_s,
                min_samples=b.min_samples, reference="eager", title=f"a + b - c on {n:,} float32 elements")
    prog = fused_program(a, bb, c)
    eager_compiles = r.variant("eager").compiles_first_call
    jit_compiles = r.variant("jit(fusion)").compiles_first_call
    speedup = steady(r, "eager") / steady(r, "jit(fusion)")

    # Part 2: static shapes.
    err = static_shapes(a)
    mask, fix = "eager x[x < 0].sum()", "jit(jnp.where(x < 0, x, 0).sum())"
    r2, outs = run_compare({mask: get_negatives, fix: jax.jit(sum_negatives_where)}, (a,), sample_seconds=b.budget_s,
                           min_samples=b.min_samples, reference=mask)
    v_mask, v_fix = float(np.asarray(outs[mask])), float(np.asarray(outs[fix]))
    rel_diff = abs(v_fix - v_mask) / max(abs(v_mask), 1e-30)
    diff = next(d for d in r2.numerics if d.candidate == fix)
    agree = diff.status in ("equal", "close")
    mask_ratio = steady(r2, mask) / steady(r2, fix)
    rows: list[dict[str, Any]] = [
        {"variant": "jit(x[x < 0].sum())", "first_s": None, "steady_s": None, "compiles": None,
         "result": (f"{err['error_class']} at {err['where']}: {err['fix']}" if err["error_class"]
                    else f"traced ({err['status']})")}]
    for name, value in ((mask, v_mask), (fix, v_fix)):
        v = r2.variant(name)
        rows.append({"variant": name, "first_s": first(r2, name), "steady_s": steady(r2, name),
                     "compiles": v.compiles_first_call, "result": f"{value:.7g}"})

    ops = ", ".join(prog["fusion_ops"]) or "nothing"
    bytes_part = (f"XLA's cost model: {_mib(prog['bytes_jit'])} accessed vs {_mib(prog['bytes_eager'])} for the "
                  f"separate computations"
                  + (", the intermediate a + b is never written" if prog["bytes_jit"] is not None
                     and prog["bytes_eager"] is not None and prog["bytes_jit"] < prog["bytes_eager"] else ""))
    if err["error_class"]:
        static_part = (f"jit(get_negatives) fails to trace with {err['error_class']} at {err['where']} "
                       f"(x[x < 0] has a data-dependent shape; fix: {err['fix']}); "
                       f"jnp.where(x < 0, x, 0).sum() under jit is {versus(r2, fix, mask)} "
                       f"against the eager boolean mask "
                       f"({fmt_seconds(steady(r2, fix))} vs {fmt_seconds(steady(r2, mask))}) and the sums "
                       f"{'agree' if agree else 'DIFFER'} (rel diff {rel_diff:.2g}).")
    else:
        static_part = "jit(get_negatives) traced without error on this JAX: the article's static-shape claim does not hold."
    per = ("one per primitive" if eager_compiles == prog["primitives"]
           else f"for {_plural(prog['primitives'] or 0, 'primitive')}")
    lesson = (f"eagerly fusion(a, b, c) ran as {_plural(eager_compiles or 0, 'separately compiled XLA computation')} "
              f"({per} of its jaxpr); jit compiled "
              f"{_plural(jit_compiles or 0, 'program')} whose optimised HLO has "
              f"{_plural(prog['fusions'], 'fusion')} holding {prog['fused_ops']} ops ({ops}); {bytes_part}; "
              f"per call jit is {versus(r, 'jit(fusion)', 'eager')} on {n:,} float32 "
              f"({fmt_seconds(steady(r, 'jit(fusion)'))} vs {fmt_seconds(steady(r, 'eager'))}). "
              f"Static shapes: {static_part}")
    facts = {"n": n, "eager_compiles_first_call": eager_compiles, "jit_compiles_first_call": jit_compiles,
             "primitives": prog["primitives"], "fusions": prog["fusions"], "fused_ops": prog["fused_ops"],
             "fusion_ops": prog["fusion_ops"], "ops_outside_fusions": prog["ops_outside_fusions"],
             "bytes_accessed_jit": prog["bytes_jit"], "bytes_accessed_eager": prog["bytes_eager"],
             "speedup_jit_vs_eager": speedup, "tracer_error_class": err["error_class"],
             "tracer_error_where": err.get("where"), "tracer_error_source": err.get("source"),
             "tracer_fix": err.get("fix"), "tracer_fix_text": err.get("fix_text"),
             "mask_over_where_jit": mask_ratio, "mask_where_apart": is_apart(r2, fix, mask), "sum_mask": v_mask, "sum_where_jit": v_fix,
             "sum_rel_diff": rel_diff, "sums_agree": agree}
    columns = [Column("variant", "static shapes: variant"), Column("first_s", "first call", "s"),
               Column("steady_s", "steady median", "s"), Column("compiles", "compiles (first call)", "int"),
               Column("result", "result")]
    return CaseStudy(NAME, TITLE, SEED, PUBLISHED, lesson, compare=r, columns=columns, rows=rows, facts=facts,
                     seconds=time.perf_counter() - t0)
