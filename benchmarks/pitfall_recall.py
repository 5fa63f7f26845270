"""Recall and false findings of `jitscope watch` on a folder of pitfall cases (docs/pitfalls.md).

Usage:
    python benchmarks/pitfall_recall.py CASES_DIR [--python PY] [--src SRC] [--json OUT] [--timeout S]
                                        [--jobs N] [--only ID ...]

CASES_DIR holds one folder per case (the format of /work/corpus/tuning/pitfalls/README.md): ``case.py``
(the pitfall), ``clean.py`` (the same program without it), ``meta.json`` (``id``, ``class``, ``function``,
``line``, ``runtime_evidence_expected``, optional ``also_present``, ``requirements``). Each program is run
as ``PY -m jitscope watch --json OUT program.py`` in its own folder (JAX_PLATFORMS=cpu, PYTHONPATH=SRC), its
output discarded, and its findings scored by the README's rule:

* hit: a finding of the expected class at the meta's ``function`` or at a line of ``case.py`` named in
  ``runtime_evidence_expected`` (or ``line``);
* false finding: any finding on ``clean.py``; on ``case.py``, a finding none of whose classes is the expected
  one or one listed in ``also_present`` (class names, or their words, in that free text).

A finding's classes come from ``jitscope.analyze.pitfalls.finding_classes`` (the taxonomy's code-to-class
map, refined by each finding's details). The report is one line per case (ids, classes, codes, function
names and line numbers: never source code) and the totals: recall (hits / cases), recall over the classes
the taxonomy calls observable at run time, cases with findings on clean.py, and false findings. Exit status
0 (the numbers are the result), 2 on bad input.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SRC = HERE.parent / "src"
_LINE = re.compile(r"\blines?\s+((?:\d+(?:\s*(?:,|and|-|–|or)\s*)?)+)", re.I)


def expected_lines(meta: dict) -> set[int]:
    """``line`` and every line number named in ``runtime_evidence_expected`` ("line 9", "lines 9 and 15")."""
    out = {int(meta["line"])} if isinstance(meta.get("line"), int) else set()
    for m in _LINE.finditer(str(meta.get("runtime_evidence_expected", ""))):
        out |= {int(n) for n in re.findall(r"\d+", m.group(1))}
    return out


def _words(name: str) -> set[str]:
    return {w for w in name.split("-") if w not in ("recompile", "or", "to", "in", "on")}


def also_present_classes(meta: dict, all_classes: list[str]) -> set[str]:
    """Classes named in ``also_present``: by their id, or by all their distinctive words in one entry."""
    out: set[str] = set()
    for entry in meta.get("also_present") or []:
        text = str(entry).lower()
        words = set(re.findall(r"[a-z0-9]+", text))
        for c in all_classes:
            if c in text or (_words(c) and _words(c) <= words):
                out.add(c)
    return out


def run_watch(py: str, src: Path, program: Path, timeout: float) -> tuple[list[dict] | None, str]:
    """The findings of ``jitscope watch`` on one program (None and why, when it produced no result)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "watch.json"
        env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            proc = subprocess.run([py, "-m", "jitscope", "watch", "-q", "--json", str(out), program.name],
                                  cwd=program.parent, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout:g} s"
        if not out.exists():
            return None, f"no result (exit {proc.returncode})"
        data = json.loads(out.read_text())
    findings = list(data.get("findings") or [])
    return findings, ""


def _brief(f: dict) -> dict:
    loc = f.get("location") or {}
    return {"code": f.get("code"), "function": f.get("function"), "line": loc.get("line"),
            "file": os.path.basename(loc.get("file") or ""), "severity": f.get("severity")}


def _matches_function(found: str | None, expected: str | None) -> bool:
    if not found or not expected:
        return False
    return found == expected or found.split(".")[-1] == expected.split(".")[-1]


def score_case(folder: Path, py: str, src: Path, timeout: float, ignore: frozenset[str] = frozenset()) -> dict:
    from jitscope.analyze.pitfalls import BY_NAME, finding_classes

    meta = json.loads((folder / "meta.json").read_text())
    expected = meta["class"]
    allowed = {expected} | also_present_classes(meta, list(BY_NAME))
    lines = expected_lines(meta)
    row: dict = {"id": meta.get("id", folder.name), "class": expected,
                 "runtime": BY_NAME[expected].runtime if expected in BY_NAME else "?"}
    case, why = run_watch(py, src, folder / "case.py", timeout)
    clean, why_clean = run_watch(py, src, folder / "clean.py", timeout) if (folder / "clean.py").exists() \
        else ([], "")
    row["error"] = "; ".join(x for x in (f"case: {why}" if why else "", f"clean: {why_clean}" if why_clean else "")
                             if x)
    case = [f for f in case or [] if f.get("code") not in ignore]
    clean = [f for f in clean or [] if f.get("code") not in ignore]
    hits, extra = [], []
    for f in case or []:
        classes = finding_classes(f)
        b = _brief(f)
        b["classes"] = sorted(classes)
        in_case = b["file"] == "case.py"
        if expected in classes and (_matches_function(f.get("function"), meta.get("function"))
                                    or (in_case and b["line"] in lines)):
            hits.append(b)
        elif not classes & allowed:
            extra.append(b)
    row["hit"] = bool(hits)
    row["hits"] = hits
    row["false_on_case"] = extra
    row["false_on_clean"] = [dict(_brief(f), classes=sorted(finding_classes(f))) for f in clean or []]
    row["case_codes"] = sorted({f.get("code") for f in case or []})
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", type=Path, help="folder of case folders (each with case.py, clean.py, meta.json)")
    p.add_argument("--python", default=sys.executable, help="interpreter with JAX and the cases' requirements")
    p.add_argument("--src", type=Path, default=DEFAULT_SRC,
                   help="the jitscope source to watch with (PYTHONPATH of each run; default this checkout's; the "
                        "finding-to-class map is always this checkout's)")
    p.add_argument("--json", type=Path, help="write every case's row here")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per program (default 300)")
    p.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1: timings stay honest)")
    p.add_argument("--only", nargs="*", help="case ids to run")
    p.add_argument("--ignore", nargs="*", default=[], metavar="CODE",
                   help="score as if these finding codes were off (say so when quoting the numbers)")
    a = p.parse_args(argv)
    if not a.cases.is_dir():
        print(f"pitfall_recall: {a.cases} is not a folder", file=sys.stderr)
        return 2
    sys.path.insert(0, str(DEFAULT_SRC))  # the class map is this checkout's; the watched jitscope is --src
    folders = sorted(d for d in a.cases.iterdir() if (d / "meta.json").is_file() and (d / "case.py").is_file())
    if a.only:
        folders = [d for d in folders if d.name in set(a.only)]
    if not folders:
        print(f"pitfall_recall: no case folders (meta.json + case.py) in {a.cases}", file=sys.stderr)
        return 2
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        rows = list(pool.map(lambda d: score_case(d, a.python, a.src, a.timeout, frozenset(a.ignore)), folders))
    if a.ignore:
        print(f"(findings of {', '.join(a.ignore)} ignored)")
    print(f"{'case':<34} {'class':<32} {'hit':<4} {'case codes':<24} false(case) false(clean)")
    for r in rows:
        fc = ",".join(f"{b['code']}@{b['line']}" for b in r["false_on_case"]) or "-"
        fl = ",".join(f"{b['code']}@{b['line']}" for b in r["false_on_clean"]) or "-"
        err = f"  [{r['error']}]" if r["error"] else ""
        print(f"{r['id'][:34]:<34} {r['class'][:32]:<32} {'yes' if r['hit'] else 'no':<4} "
              f"{','.join(r['case_codes'])[:24]:<24} {fc} | {fl}{err}")
    n = len(rows)
    hits = sum(r["hit"] for r in rows)
    observable = [r for r in rows if r["runtime"] in ("yes", "partly")]
    clean_bad = sum(bool(r["false_on_clean"]) for r in rows)
    false_case = sum(len(r["false_on_case"]) for r in rows)
    false_clean = sum(len(r["false_on_clean"]) for r in rows)
    obs_hits = sum(r["hit"] for r in observable)
    print(f"\nrecall: {hits}/{n} = {hits / n:.0%}   (classes observable at run time: {obs_hits}/{len(observable)}"
          f"{f' = {obs_hits / len(observable):.0%}' if observable else ''})")
    print(f"clean programs with findings: {clean_bad}/{n}   false findings: {false_clean} on clean.py, "
          f"{false_case} on case.py   ({time.time() - t0:.0f} s)")
    by_code: dict[str, int] = {}
    for r in rows:
        for b in r["false_on_case"] + r["false_on_clean"]:
            by_code[b["code"]] = by_code.get(b["code"], 0) + 1
    if by_code:
        print("false findings by code: " + ", ".join(f"{c} x{k}" for c, k in sorted(by_code.items())))
    missed = sorted(r["class"] for r in rows if not r["hit"])
    if missed:
        print("missed classes: " + ", ".join(missed))
    if a.json:
        a.json.write_text(json.dumps({"rows": rows, "recall": hits / n, "cases": n, "clean_with_findings": clean_bad,
                                      "false_on_clean": false_clean, "false_on_case": false_case}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
