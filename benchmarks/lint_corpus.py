"""`jitscope lint` on real JAX codebases: findings per 1k lines, per package and per rule.

    python benchmarks/lint_corpus.py [--site-packages DIR] [--packages jax,flax,optax] [--jobs 2]
                                     [--sample N] [--seed 0] [--quick]

Lints the installed sources of each package (by default from .venv-bench, created with
`python -m venv .venv-bench && .venv-bench/bin/pip install flax optax`; never commit
them). It must never crash: parse findings (JS001/JS002) are counted separately.
`--sample N` prints N findings picked at random (with their source line) to check by
hand; the precision seen is recorded in benchmarks/results_lint.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site-packages", type=Path,
                    default=next(iter(sorted((ROOT / ".venv-bench" / "lib").glob("python3*/site-packages"))), None))
    ap.add_argument("--packages", default="jax,flax,optax")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=0, help="print this many random findings to check by hand")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="optax and flax only")
    args = ap.parse_args()
    import jitscope

    if args.site_packages is None or not args.site_packages.is_dir():
        sys.exit("no site-packages: create .venv-bench (see the docstring) or pass --site-packages")
    packages = [p for p in args.packages.split(",") if p]
    if args.quick:
        packages = [p for p in packages if p != "jax"]
    rows, all_findings, per_rule = [], [], Counter()
    for pkg in packages:
        path = args.site_packages / pkg
        if not path.is_dir():
            print(f"{pkg}: not installed in {args.site_packages}")
            continue
        t = time.perf_counter()
        res = jitscope.lint([str(path)], jobs=args.jobs, config=False)
        dt = time.perf_counter() - t
        parse = sum(f.code in ("JS001", "JS002") for f in res.findings)
        real = [f for f in res.findings if f.code not in ("JS001", "JS002")]
        per_rule.update(f.code for f in real)
        all_findings += [(pkg, f) for f in real]
        rows.append((pkg, res.files_checked, res.lines_checked, len(real), parse, dt,
                     Counter(f.code for f in real)))
    print("| package | files | lines | findings | per 1k lines | parse findings | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for pkg, files, lines, n, parse, dt, _ in rows:
        print(f"| {pkg} | {files} | {lines} | {n} | {1000 * n / max(lines, 1):.3f} | {parse} | {dt:.1f} |")
    codes = sorted(per_rule)
    print("\n| rule | " + " | ".join(r[0] for r in rows) + " | total |")
    print("|---|" + "---:|" * (len(rows) + 1))
    for code in codes:
        print(f"| {code} | " + " | ".join(str(r[6].get(code, 0)) for r in rows) + f" | {per_rule[code]} |")
    if args.sample:
        rng = random.Random(args.seed)
        pick = rng.sample(all_findings, min(args.sample, len(all_findings)))
        print(f"\n## {len(pick)} random findings (seed {args.seed})\n")
        for i, (_pkg, f) in enumerate(pick, 1):
            rel = f.location.file.split("site-packages/")[-1]
            print(f"{i}. {rel}:{f.location.line} {f.code} {f.message}\n   `{f.details.get('source', '').strip()}`")


if __name__ == "__main__":
    main()
