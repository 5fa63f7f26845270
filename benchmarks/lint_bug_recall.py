"""Bug recall: does `jitscope lint` flag real shipped-and-fixed jit bugs at the lines their fix changed?

    python benchmarks/lint_bug_recall.py [--bugs /work/corpus/tuning/bugs] [--out /work/bench/bug-recall]
                                         [--evidence-dir DIR] [--collect] [--only ID,ID] [--unknown-callers]

Each bug folder (built by the corpus builders, outside this repository) holds ``record.json`` (the
buggy files and lines at the parent of the fix), ``tree/`` (the code at that parent) and a driver.
The whole tree is linted with this checkout's ``src`` (a subprocess, ``--json``); the bug counts as
**found** when a finding lands on one of the recorded lines of a recorded file (one line of slack
either side: a fix often moves the statement it repairs), and the table says with which rule and
severity. ``--evidence-dir DIR`` adds ``--evidence DIR/<id>.json`` where such a file exists (a
record of a run of the bug's driver: the recall with evidence); ``--collect`` first makes those
records by running each runnable bug's driver under `jitscope watch --trace-evidence` (this checkout's src), in the venv
its record names (``/work/bench/bugs-venv``, or ``bugs-venv-jax0435`` for trees that need JAX 0.4.35),
into ``--evidence-dir`` (default ``<out>/evidence``). Prints a Markdown table and writes
``<out>/recall.json``; nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lint_tree(tree: Path, out: Path, evidence: Path | None, extra: tuple[str, ...] = ()) -> list[dict]:
    cmd = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--exit-zero", "--format", "json", *extra, str(tree)]
    if evidence is not None:
        cmd += ["--evidence", str(evidence)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{tree}: {proc.stderr[-2000:]}")
    out.write_text(proc.stdout)
    return json.loads(proc.stdout)["findings"]


def collect(bug: Path, record: dict, evidence: Path, venvs: Path) -> None:
    """Run the bug's driver under `jitscope watch --trace-evidence` from its tree (when the record says it runs
    here), in the bug's venv with this checkout's jitscope."""
    runnable = str(record.get("runnable_here", ""))  # "yes ..." (bugs, bugs4) or the venv's path (bugs5)
    if not (runnable.startswith("yes") or runnable.startswith("/")) or not (bug / "driver.py").is_file():
        return
    note = str(record.get("jax_version_note", "")) + (
        (bug / "venv.txt").read_text() if (bug / "venv.txt").is_file() else "")
    venv = venvs / ("bugs-venv-jax0435" if "0.4.35" in note else "bugs-venv")
    evidence.parent.mkdir(parents=True, exist_ok=True)
    # the user-facing collector (watch: functions traced, and what the run observed at the user's lines)
    cmd = [str(venv / "bin" / "python"), "-m", "jitscope", "watch", "-q", "--trace-evidence", str(evidence),
           "../driver.py"]
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT / "src")}
    try:
        proc = subprocess.run(cmd, cwd=bug / "tree", capture_output=True, text=True, env=env, timeout=900)
        (evidence.parent / f"{bug.name}.log").write_text(proc.stdout[-4000:] + proc.stderr[-4000:])
    except subprocess.TimeoutExpired:
        (evidence.parent / f"{bug.name}.log").write_text("timed out after 900 s")


def judge(record: dict, tree: Path, findings: list[dict]) -> dict:
    wanted = {}
    for f in record.get("files", []):
        wanted[os.path.normpath(str(tree / f["path"]))] = set(f.get("lines_at_parent", []))
    hits, in_files = [], 0
    for f in findings:
        loc = f.get("location") or {}
        path = os.path.normpath(loc.get("file", ""))
        lines = wanted.get(path)
        if lines is None:
            continue
        in_files += 1
        if any(abs(loc.get("line", 0) - ln) <= 1 for ln in lines):
            hits.append(f"{f['code']} {f['severity']} {os.path.basename(path)}:{loc.get('line')}")
    return {"id": record["id"], "found": bool(hits), "hits": hits, "findings_in_files": in_files,
            "findings_in_tree": len(findings), "visible": record.get("statically_visible", "")[:60]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bugs", default="/work/corpus/tuning/bugs")
    ap.add_argument("--out", default="/work/bench/bug-recall")
    ap.add_argument("--evidence-dir")
    ap.add_argument("--collect", action="store_true", help="run the drivers to record trace evidence first")
    ap.add_argument("--venvs", default="/work/bench", help="where bugs-venv and bugs-venv-jax0435 live")
    ap.add_argument("--only", default="")
    ap.add_argument("--unknown-callers", action="store_true", help="lint with --unknown-callers (public functions "
                    "no linted jit reaches, as if a user jits them: info findings)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}
    if args.collect and not args.evidence_dir:
        args.evidence_dir = str(out / "evidence")
    rows = []
    for bug in sorted(Path(args.bugs).iterdir()):
        rec_path = bug / "record.json"
        if not rec_path.is_file() or (only and bug.name not in only):
            continue
        record = json.loads(rec_path.read_text())
        tree = bug / "tree"
        evidence = Path(args.evidence_dir) / f"{bug.name}.json" if args.evidence_dir else None
        if args.collect and evidence is not None and not evidence.is_file():
            collect(bug, record, evidence, Path(args.venvs))
        if evidence is not None and not evidence.is_file():
            evidence = None
        findings = lint_tree(tree, out / f"{bug.name}.json", evidence,
                             ("--unknown-callers",) if args.unknown_callers else ())
        row = judge(record, tree, findings)
        row["evidence"] = evidence is not None
        rows.append(row)
    print("| bug | found | finding at the bug | findings in the bug's files | in the tree | statically visible |")
    print("|---|---|---|---:|---:|---|")
    for r in rows:
        print(f"| {r['id']} | {'yes' if r['found'] else 'no'} | {'; '.join(r['hits'])} | {r['findings_in_files']} | "
              f"{r['findings_in_tree']} | {r['visible']} |")
    found = sum(r["found"] for r in rows)
    print(f"\nfound {found} of {len(rows)} ({100 * found / max(len(rows), 1):.0f}%)")
    (out / "recall.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
