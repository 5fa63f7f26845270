"""Precision review of JW403/JW404 on real test suites (benchmarks/RESULTS.md, "Duplicate compiles on real
test suites (JW403/JW404)"). Three subcommands:

* ``check RUN.json DUMP_DIR``: the independent check. For each finding of a ``watch --json --dump`` run,
  compares XLA's optimised HLO of the two compiles (``NNNN_*.hlo.txt``, module name, metadata and source
  tables stripped) and, for JW404, the dumped StableHLO with every ``dense<...>`` blanked; then lists
  pairs of compiles of one function (same definition and transform) with equal optimised HLO that were
  not reported (misses).
* ``reanalyse RUN.json OUT.json``: the current tree's analyzer over the run's saved events (before/after
  a fix, on the same compiles). Needs ``PYTHONPATH=src``.
* ``verdicts RUN.json [FINDINGS.json]``: real / defensible / wrong by the rules the hand review settled on
  (each rule is one class of findings read by hand in the library's code; see RESULTS.md), and issue #24's
  scope rules read from the events: a pair across tests, across jit options, inside a library, or "create
  it once" for objects called at two lines is wrong. Misses are counted within one test and jit options.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import re
import sys

_SOURCE_TABLES = re.compile(r"^(\d+ |FileNames$|FunctionNames$|FileLocations$|StackFrames$)")
_HLO_CONST = re.compile(r"constant\((.*?)\)(?=[,\n ])")


def _hlo(dump: str, i: int) -> str | None:
    paths = glob.glob(os.path.join(dump, f"{i:04d}_*.hlo.txt"))
    if not paths:
        return None
    t = open(paths[0]).read()
    t = re.sub(r"^HloModule \S+,", "HloModule M,", t, flags=re.M)
    t = "\n".join(line for line in t.split("\n") if not _SOURCE_TABLES.match(line))
    t = re.sub(r", metadata=\{[^}]*\}", "", t)
    return re.sub(r"jit\([^)]*\)", "jit(F)", t)


def _stablehlo(dump: str, i: int) -> str | None:
    paths = glob.glob(os.path.join(dump, f"{i:04d}_*.stablehlo.mlir"))
    if not paths:
        return None
    t = re.sub(r"^module @\S+", "module @M", open(paths[0]).read(), flags=re.M)
    return re.sub(r" loc\(.*?\)$", "", t, flags=re.M)


def check(run_path: str, dump: str) -> None:
    data = json.load(open(run_path))
    findings = [f for f in data["findings"] if f["code"] in ("JW403", "JW404")]
    print(len(data["events"]), "events;", dict(collections.Counter(f["code"] for f in findings)))
    hlo_verdicts: collections.Counter = collections.Counter()
    shlo_verdicts: collections.Counter = collections.Counter()
    for f in findings:
        i, j = f["compile_index"], f["details"]["earlier_index"]
        a, b = _hlo(dump, j), _hlo(dump, i)
        if a is None or b is None:
            v = "no dump"
        else:
            v = "HLO equal" if a == b else "HLO equal but constants" if _HLO_CONST.sub("#", a) == _HLO_CONST.sub(
                "#", b) else "HLO DIFFERS"
        hlo_verdicts[(f["code"], v)] += 1
        if f["code"] == "JW404":
            sa, sb = _stablehlo(dump, j), _stablehlo(dump, i)
            if sa is None or sb is None:
                shlo_verdicts["no dump"] += 1
            else:
                blind = [re.sub(r"dense<[^>]*>", "dense<#>", x) for x in (sa, sb)]
                shlo_verdicts["StableHLO equal" if sa == sb else "StableHLO equal but constants"
                              if blind[0] == blind[1] else "StableHLO DIFFERS"] += 1
    for k, n in sorted(hlo_verdicts.items()):
        print(f"  {n:4d} {k}")
    print("  JW404 StableHLO:", dict(shlo_verdicts))
    reported = {f["compile_index"] for f in findings}
    seen: dict[tuple, list[int]] = collections.defaultdict(list)
    misses = []
    for e in data["events"]:
        d = e.get("definition") or {}
        key = (e["function"], d.get("file"), d.get("line"), e.get("transform"), e.get("test"), e.get("jit_options"))
        h = _hlo(dump, e["index"])
        if h is None:
            continue
        twin = next((o for o in seen[key] if _hlo(dump, o) == h), None)
        if twin is not None and e["index"] not in reported:
            library = _installed(e.get("definition")) and _installed(e.get("call_site"))
            misses.append((e["index"], twin, e["function"], "a library's own (not advice)" if library else "MISSED"))
        seen[key].append(e["index"])
    print("unreported pairs with equal optimised HLO:", len(misses))
    for m in misses:
        print("  ", m)


def reanalyse(run_path: str, out_path: str) -> None:
    from jitscope.analyze.duplicates import duplicate_findings
    from jitscope.results import load_result

    r = load_result(run_path)
    found = duplicate_findings(r.events, {p.fingerprint: p for p in (r.programs or [])})
    for k, n in sorted(collections.Counter((f.code, f.details["key_difference"]) for f in found).items()):
        print(f"  {n:4d} {k}")
    json.dump([{"code": f.code, "compile_index": f.compile_index, "function": f.function, "message": f.message,
                "fix": f.fix.title if f.fix else None, "details": f.details} for f in found],
              open(out_path, "w"), indent=1)


def _installed(loc: dict | None) -> bool:
    return bool(loc) and ("/site-packages/" in loc["file"] or "/dist-packages/" in loc["file"])


def _site(e: dict) -> tuple | None:
    c = e.get("call_site")
    return (c["file"], c["line"]) if c else None


def _verdict(f: dict, events: list[dict]) -> tuple[str, str]:
    k = f["details"]["key_difference"]
    e, old = events[f["compile_index"]], events[f["details"]["earlier_index"]]
    # Issue #24's rules, read from the events alone: advice only where one change merges the two compiles.
    if e.get("test") != old.get("test"):
        return "wrong", "paired across two tests (or parametrizations)"
    if (e.get("jit_options") or "") != (old.get("jit_options") or ""):
        return "wrong", "paired two jit objects with other options"
    if _installed(e.get("definition")) and _installed(e.get("call_site")):
        return "wrong", "a library's own compiles (defined and called in site-packages)"
    if f["code"] == "JW403" and k.startswith("a new function object") and _site(e) != _site(old):
        return "wrong", "'create it once' for objects called at two lines"
    if f["code"] == "JW404":
        if f["function"] == "safe_norm":  # optax numerics_test: ord of jnp.linalg.norm, static by its API
            return "defensible", "JW404: norm's ord, which cannot be traced"
        return "real", "JW404"
    if (e.get("bindings") or "").startswith("bodies: "):  # eager lax.cond with per-call closures (optax)
        if k.startswith("lax.cond called outside jit"):
            return "real", "eager cond, named"
        return "wrong", f"eager cond called {k!r}"
    kws = [(x.get("signature") or {}).get("keywords") for x in (e, old)]
    if None not in kws and set(kws[0]) != set(kws[1]) and "keyword" not in k:
        return ("wrong" if k.startswith("nothing") else "defensible"), f"keyword vs positional called {k!r}"
    if k == "pytree container" and all("(absent)" in d for d in f["details"]["differences"]):
        return "defensible", "an unread argument left out called 'pytree container'"
    leaves = [{leaf["path"]: leaf.get("sharding") for leaf in (x.get("signature") or {}).get("leaves", [])}
              for x in (old, e)]
    if k == "weak type" and leaves[0] != leaves[1]:
        return "defensible", "weak type named, the sharding differed too"
    if k.startswith("nothing"):
        return "unreviewed", k
    return "real", k


def verdicts(run_path: str, findings_path: str | None = None) -> None:
    data = json.load(open(run_path))
    findings = (json.load(open(findings_path)) if findings_path else
                [f for f in data["findings"] if f["code"] in ("JW403", "JW404")])
    by_class: collections.Counter = collections.Counter()
    for f in findings:
        v, why = _verdict(f, data["events"])
        by_class[(f["code"], v, why)] += 1
    totals = collections.Counter({(c, v): 0 for c, v, _ in by_class})
    for (c, v, _), n in by_class.items():
        totals[(c, v)] += n
    print(dict(totals))
    for k, n in sorted(by_class.items()):
        print(f"  {n:4d} {k}")


if __name__ == "__main__":
    commands = {"check": check, "reanalyse": reanalyse, "verdicts": verdicts}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit("usage: duplicate_precision.py check|reanalyse|verdicts ARGS (see the docstring)")
    commands[sys.argv[1]](*sys.argv[2:])
