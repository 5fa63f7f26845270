"""JW403 over saved watch runs, by the duplicates.py of a base commit and by this tree's, side by side.

    python benchmarks/jw403_before_after.py BASE_COMMIT run1.json [run2.json ...]

Prints, per run, the JW403 count of each and every compile whose finding (key difference, fix) changed. A saved
run carries no trace context or checking modes, so pairs the live run leaves out for those are counted here
(the ``live`` column is what the run itself reported).
"""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import jitscope.analyze.duplicates as new
from jitscope.results import load_result


def main(base: str, paths: list[str]) -> None:
    src = subprocess.run(["git", "show", f"{base}:src/jitscope/analyze/duplicates.py"], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parent).stdout
    old = types.ModuleType("jitscope.analyze._duplicates_base")
    old.__package__ = "jitscope.analyze"
    exec(compile(src, "duplicates_base.py", "exec"), old.__dict__)  # noqa: S102 - the project's own file
    for path in paths:
        r = load_result(path)
        progs = {p.fingerprint: p for p in (r.programs or [])}
        before = {f.compile_index: f for f in old.duplicate_findings(r.events, progs) if f.code == "JW403"}
        after = {f.compile_index: f for f in new.duplicate_findings(r.events, progs) if f.code == "JW403"}
        live = [f for f in r.findings if f.code == "JW403"]
        print(f"{path}: {len(r.events)} compiles; JW403 base {len(before)}, now {len(after)} (saved run), "
              f"live {len(live)}")
        for i in sorted(set(before) | set(after)):
            a, b = before.get(i), after.get(i)
            ka = (a.details["key_difference"][:70], a.fix.title[:40]) if a else None
            kb = (b.details["key_difference"][:70], b.fix.title[:40]) if b else None
            if ka != kb:
                print(f"  #{i} {r.events[i].test}\n     base {ka}\n     now  {kb}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
