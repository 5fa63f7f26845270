"""How fast is `jitscope lint`? Lines per second next to a bare `ast.parse` loop over the same files.

`ast.parse` of every file is the floor for a Python AST linter: it has to parse each file
once, and the parse alone costs this much. The goals: single-process lint within 3x of
that floor, and lint on 2 worker processes faster than the single-process floor.

    python benchmarks/lint_speed.py [--tree DIR ...] [--jobs 2] [--repeats 3] [--quick]

The single-process lint runs twice, with the call graph (lint/callgraph.py: functions traced
because traced code calls them, within and across the linted files) and without it, side by side.
    python benchmarks/lint_speed.py --cases [--repeats 5]

``--against OTHER/src`` (repeatable) times serial lint of another checkout's sources beside this one's,
interleaved, each run in a fresh process that times the floor before and after its lint (before/after a
change, in the same window of a shared machine).

``--cases`` times two generated worst cases instead (written to a temporary directory):
a file with one 1 MB line (one finding on it) and a ~100 KB file with 2,000 findings, each
next to ``ast.parse`` of the same file (goal: within 3x; slicing per finding used to make
both quadratic).

Default tree: site-packages/{jax,flax,optax} of .venv-bench (or the jax package that is
importable here). Each method reads the files itself; runs are interleaved and the
median of the repeats is reported.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def default_trees() -> list[Path]:
    bench = sorted((ROOT / ".venv-bench" / "lib").glob("python3*/site-packages"))
    if bench:
        return [bench[0] / p for p in ("jax", "flax", "optax") if (bench[0] / p).is_dir()]
    import importlib.util

    spec = importlib.util.find_spec("jax")
    return [Path(spec.origin).parent] if spec and spec.origin else []


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def floor(files: list[str]) -> tuple[float, float]:
    t, c = time.perf_counter(), _cpu()
    for f in files:
        try:
            ast.parse(Path(f).read_bytes(), filename=f)
        except (SyntaxError, ValueError):
            pass
    return time.perf_counter() - t, _cpu() - c


def lint_run(files: list[str], jobs: int, call_graph: bool = True) -> tuple[float, float, int]:
    from jitscope.lint import callgraph, runner
    from jitscope.lint.registry import all_rules

    enabled = frozenset(all_rules())
    callgraph.ENABLED = call_graph
    try:
        t, c = time.perf_counter(), _cpu()
        n = sum(len(o.findings) for o in runner.run([(f, enabled) for f in files], jobs=jobs))
        return time.perf_counter() - t, _cpu() - c, n
    finally:
        callgraph.ENABLED = True


HEAD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n"


def case_files(directory: Path) -> dict[str, Path]:
    """The generated worst cases: a 1 MB line, and 2,000 findings in ~100 KB (non-ASCII text on each line)."""
    wide = directory / "one_mb_line.py"
    names = ", ".join(f"x{i}" for i in range(150_000))
    wide.write_text(HEAD + f"    names = ['\u00e9', {names}]\n    if x > 0:\n        return x\n    return names\n",
                    encoding="utf-8")
    dense = directory / "two_thousand_findings.py"
    dense.write_text(HEAD + "".join(f"    y{i} = sum(x) + jnp.float32({i}) * 0.5  # \u00e9 value {i}\n" for i in range(2000)) + "    return x\n",
                     encoding="utf-8")
    return {"1 MB line, 1 finding": wide, "2,000 findings": dense}


def run_cases(repeats: int) -> None:
    import tempfile

    from jitscope.lint.registry import all_rules
    from jitscope.lint.runner import lint_file

    enabled = frozenset(all_rules())
    print(f"cpus: {os.cpu_count()}  repeats: {repeats}  python {sys.version.split()[0]}")
    print("\n| case | bytes | findings | ast.parse floor s | lint s | x floor |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for name, path in case_files(Path(d)).items():
            floors, lints, found = [], [], 0
            for _ in range(repeats):
                floors.append(floor([str(path)])[0])
                t = time.perf_counter()
                found = len(lint_file(str(path), enabled).findings)
                lints.append(time.perf_counter() - t)
            f, m = statistics.median(floors), statistics.median(lints)
            print(f"| {name} | {path.stat().st_size:,} | {found} | {f:.3f} | {m:.3f} | {m / f:.2f} |")


AGAINST = """
import ast, sys, time
sys.path.insert(0, sys.argv[1])
from jitscope.lint import runner
from jitscope.lint.registry import all_rules
files = runner.collect_files(sys.argv[2:])
enabled = frozenset(all_rules())
def floor():
    t = time.process_time()
    for f in files:
        try:
            ast.parse(open(f, "rb").read(), filename=f)
        except (SyntaxError, ValueError):
            pass
    return time.process_time() - t
a = floor()
t = time.process_time()
n = sum(len(o.findings) for o in runner.run([(f, enabled) for f in files], jobs=1))
b = time.process_time() - t
print(a, b, floor(), n)
"""


def run_against(srcs: list[str], trees: list[Path], repeats: int) -> None:
    """Serial lint CPU of each ``src`` against the floor, interleaved (the order alternates per repeat)."""
    rows: dict[str, list[tuple[float, float, int]]] = {s: [] for s in srcs}
    for r in range(repeats):
        for src in srcs if r % 2 == 0 else srcs[::-1]:
            out = subprocess.run([sys.executable, "-c", AGAINST, src, *map(str, trees)],
                                 capture_output=True, text=True, check=True).stdout.split()
            a, b, c, n = float(out[0]), float(out[1]), float(out[2]), int(out[3])
            rows[src].append(((a + c) / 2, b, n))
    print(f"repeats: {repeats}  load average {os.getloadavg()[0]:.1f} (at the end)  python {sys.version.split()[0]}")
    print("\n| src | median floor CPU s | median serial lint CPU s | median x floor (per run) | findings |")
    print("|---|---:|---:|---:|---:|")
    for src, v in rows.items():
        print(f"| {src} | {statistics.median(x[0] for x in v):.2f} | {statistics.median(x[1] for x in v):.2f} | "
              f"{statistics.median(x[1] / x[0] for x in v):.2f} | {v[0][2]} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", type=Path, help="directory to lint (repeatable)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="every 4th file, one repeat")
    ap.add_argument("--cases", action="store_true", help="time the generated worst cases instead of a tree")
    ap.add_argument("--against", action="append", default=[], metavar="SRC",
                    help="another checkout's src directory: serial lint beside this one's, interleaved")
    args = ap.parse_args()
    if args.against:
        run_against([str(ROOT / "src"), *args.against], args.tree or default_trees(), args.repeats)
        return
    if args.cases:
        run_cases(args.repeats)
        return
    from jitscope.lint.runner import collect_files

    trees = args.tree or default_trees()
    files = collect_files([str(t) for t in trees])
    if args.quick:
        files, args.repeats = files[::4], 1
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    print(f"tree: {', '.join(str(t) for t in trees)}")
    print(f"files: {len(files)}  lines: {lines}  cpus: {os.cpu_count()}  repeats: {args.repeats}  python {sys.version.split()[0]}")
    names = ["ast.parse loop (floor)", "jitscope lint, 1 process", "jitscope lint, 1 process, no call graph",
             f"jitscope lint, {args.jobs} processes"]
    times: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(args.repeats):
        for name, run in zip(names, (lambda: floor(files), lambda: lint_run(files, 1)[:2],
                                     lambda: lint_run(files, 1, call_graph=False)[:2],
                                     lambda: lint_run(files, args.jobs)[:2]), strict=True):
            wall, cpu = run()
            times[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(times[names[0]])
    print("\n| method | median wall s | lines/s | x floor wall | median CPU s (incl. workers) |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        m = statistics.median(times[name])
        print(f"| {name} | {m:.2f} | {lines / m:,.0f} | {m / base:.2f} | {statistics.median(cpus[name]):.2f} |")
    print("\nCPU time is process + reaped worker time: on a shared machine, wall time shows contention")
    print("and CPU time shows the work. Parallel wall time can only beat the floor when the cores are free.")


if __name__ == "__main__":
    main()
