"""Reproduce the seeds' tables: the figures each seed published next to what this machine measures.

Runs the gallery case studies (jitscope.gallery) once and prints, per seed figure, the published
value, the measured value and the measured ratio where the seed gave one. Seeds are from
2019-2022 hardware and JAX versions: disagreement is a finding, not a bug.

    .venv/bin/python benchmarks/seed_tables.py            # full sizes (seed 000: ones((1000,1000)), N up to 1600)
    .venv/bin/python benchmarks/seed_tables.py --quick    # smaller sizes, seconds
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def fmt(s: float | None) -> str:
    from jitscope.render.console import fmt_seconds

    return fmt_seconds(s)


def ratio(r: float | None) -> str:
    from jitscope.analyze.compare import fmt_ratio

    return fmt_ratio(r)


def rows_for(result) -> list[tuple[str, str, str, str]]:
    """(seed, figure, published, measured) rows from a DemoResult."""
    rows: list[tuple[str, str, str, str]] = []

    def st(case, name):
        return case.compare.variant(name).steady.median

    def fc(case, name):
        return case.compare.variant(name).first_call.median

    for case in result.cases:
        if case.error is not None:
            rows.append((case.seed[:3], case.title, case.published, f"FAILED: {case.error}"))
            continue
        if case.name == "jit_scope":
            shp = "x".join(map(str, case.facts["shape"]))
            rows += [
                ("000", f"jit(g) first call (ones {shp})", "0.5 s", fmt(fc(case, "jit(g)"))),
                ("000", "jit(g) later calls", "0.005 s", fmt(st(case, "jit(g)"))),
                ("000", "jit(f) only, first call", "0.08 s", fmt(fc(case, "jit(f)"))),
                ("000", "jit(f) only, later calls", "0.075 s", fmt(st(case, "jit(f)"))),
                ("000", "no jit", "0.3 s", fmt(st(case, "eager"))),
                ("000", "no jit / jit(g) per call", ratio(0.3 / 0.005), ratio(st(case, "eager") / st(case, "jit(g)"))),
                ("000", "jit(both) / jit(g) per call", "1x (inner jit inlined)",
                 ratio(st(case, "jit(both)") / st(case, "jit(g)"))),
            ]
        elif case.name == "selu":
            rows.append(("001", f"SELU eager / jit per call ({case.facts['n']:,} samples)", "'several times'",
                         ratio(case.facts["speedup_jit_vs_eager"])))
        elif case.name == "random_walk":
            n, t = case.facts["realisations"], case.facts["steps"]
            rows += [
                ("001", f"random walk {n}x{t}: Python / jit(scan+vmap)", "'dozens of times'",
                 ratio(case.facts["speedup_jit_vs_python"])),
                ("001", "random walk: Python / lax.scan alone", "'most of it'", ratio(case.facts["speedup_scan_vs_python"])),
                ("001", "random walk: jit(scan+vmap) / vectorised NumPy", "(not in seed)", ratio(case.facts["numpy_vs_jit"])),
            ]
        elif case.name == "lambda_cache":
            f = case.facts
            rows += [
                ("002", "jit(lambda) in a 20-step loop, per loop", "203 ms", fmt(f["per_loop_lambda_s"])),
                ("002", "cached jit in a 20-step loop, per loop", "15.2 ms", fmt(f["per_loop_cached_s"])),
                ("002", "lambda / cached", ratio(203 / 15.2), ratio(f["ratio"])),
                ("002", "compiles per loop (lambda / cached)", "20 / 0 (implied)",
                 f"{f['compiles_per_loop_lambda']:.3g} / {f['compiles_per_loop_cached']:.3g}"),
            ]
        elif case.name == "float_simplify":
            f = case.facts
            measured = "identical to eager" if f["identical"] else (
                f"differs: max rel {f['max_rel_jit_vs_eager']:.3g}; == y in {f['exact_jit']}/{f['n']}")
            rows.append(("002", "x + y - x under jit", "returns y exactly", measured))
        elif case.name == "builtin_sum":
            last = case.rows[-1]
            n = last["n"]
            rows += [
                ("003", f"time to jit, builtin sum, N={n}", "5.2 s (N=1600)", fmt(last["jit_builtin_s"])),
                ("003", f"unjitted builtin sum per call, N={n}", "0.02 s (N=6400)", fmt(last["eager_builtin_s"])),
                ("003", f"time to jit, jnp.sum, N={n}", "(fast)", fmt(last["jit_jnp_s"])),
                ("003", "growth exponent of time to jit (builtin sum)", "'superlinear' (> 1)",
                 f"{case.facts['exponent_jit_builtin']:.2f}"),
                ("003", "growth exponent of time to jit beyond jnp.sum's", "'superlinear' (> 1)",
                 "-" if case.facts["exponent_jit_excess"] is None else f"{case.facts['exponent_jit_excess']:.2f}"),
                ("003", "growth exponent of jaxpr size (builtin sum)", "(unrolled: 1)",
                 f"{case.facts['exponent_eqns_builtin']:.2f}"),
            ]
        elif case.name == "fusion":
            f = case.facts
            rows += [
                ("004", f"a + b - c eagerly ({f['n']:,} float32): XLA computations compiled",
                 "two separate computations", f"{f['eager_compiles_first_call']} (jaxpr: {f['primitives']} primitives)"),
                ("004", "a + b - c under jit: programs / fusions (ops fused)", "one fused computation",
                 f"{f['jit_compiles_first_call']} / {f['fusions']} ({', '.join(f['fusion_ops']) or '-'})"),
                ("004", "bytes accessed, separate / fused (cost model)", "(not in seed)",
                 "-" if f["bytes_accessed_eager"] is None or not f["bytes_accessed_jit"] else
                 f"{f['bytes_accessed_eager'] / 2**20:.1f} / {f['bytes_accessed_jit'] / 2**20:.1f} MiB"),
                ("004", "a + b - c eager / jit per call", "(not in seed)", ratio(f["speedup_jit_vs_eager"])),
                ("004", "x[x<0] under jit", "fails (boolean indices must be concrete)",
                 f"fails: {f['tracer_error_class']}" if f["tracer_error_class"] else "traces"),
                ("004", "eager x[x<0].sum() / jit jnp.where fix per call", "(not in seed)",
                 ratio(f["mask_over_where_jit"])),
            ]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (the demo's --quick)")
    parser.add_argument("--json", metavar="PATH", help="also save the underlying DemoResult")
    args = parser.parse_args(argv)

    import jax

    from jitscope import demo

    t0 = time.perf_counter()
    result = demo(quick=args.quick)
    if args.json:
        result.save(args.json)
    rows = rows_for(result)
    widths = [max(len(r[i]) for r in rows + [("seed", "figure", "published", "measured")]) for i in range(4)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print(f"seed tables, published vs measured ({'quick' if args.quick else 'full'} sizes; "
          f"jax {jax.__version__}, {jax.default_backend()}, {os.cpu_count()} CPUs)")
    print(line.format("seed", "figure", "published", "measured"))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))
    print(f"\n{len(result.cases)} case studies in {time.perf_counter() - t0:.1f} s")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
