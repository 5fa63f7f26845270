"""Audit watch's attribution on a real run (#24 item 2): wrong call sites, definitions, reasons and
explanations, counted from a ``jitscope watch --json`` result (or an ``--events`` file).

    python benchmarks/attribution_audit.py RUN.json [RUN2.json ...] [--site-packages DIR]

Counted per event, each class once per event:

* ``call_site_in_library``: the call site is in an installed library or the standard library
  (``_jaxcompat.is_library_file``), while the run's program frames exist (a test's line).
* ``definition_in_wrapper``: the function is defined inside a jit wrapper's own module (equinox's
  ``_jit.py``/``_vmap_pmap.py``, flax ``nnx`` transforms) instead of at the user's function.
* ``new_object_under_filtered_wrapper``: "new function object" for an equinox ``filter_*`` compile
  whose function is a module or a bound method (the cause is a field or a shape).
* ``multiline_reason``: a reason detail over several lines (a treedef printed on many lines).
* ``false_absent``: a ``pytree_change`` naming ``(absent)`` for something other than a whole argument.
* ``cache_evicted``: "same signature ... cache evicted or cleared" (then: how many differ only in jit
  options, or are derived programs whose function's latest call had other static values: cases this
  branch names).
* ``none_hashed_by_identity``: a static ``None`` called "hashed by identity".
* ``explanation_of_another_function``: JAX's explanation text names a function other than the event's.

Tuning tool: the numbers in benchmarks/RESULTS.md come from the tuning suites only.
"""

from __future__ import annotations

import collections
import json
import os
import sys

from jitscope._jaxcompat import is_library_file
from jitscope.collect.monitoring import _explained_function

_WRAPPER_MODULES = (os.path.join("equinox", "_jit.py"), os.path.join("equinox", "_vmap_pmap.py"),
                    os.path.join("flax", "nnx", "transforms"))


def _events(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)["events"]
    except (json.JSONDecodeError, KeyError):
        return [d for d in map(json.loads, filter(None, text.splitlines())) if d.get("type") != "program"]


def audit(events: list[dict]) -> collections.Counter[str]:
    out: collections.Counter[str] = collections.Counter()
    for e in events:
        out["events"] += 1
        reason = e.get("reason") or {}
        detail, category = reason.get("detail") or "", reason.get("category")
        site, definition = e.get("call_site") or {}, e.get("definition") or {}
        if site.get("file") and is_library_file(site["file"]):
            out["call_site_in_library"] += 1
        if any(m in (definition.get("file") or "") for m in _WRAPPER_MODULES):
            out["definition_in_wrapper"] += 1
        if category == "new_function_object" and (e.get("wrapper") or "").startswith("equinox"):
            out["new_object_under_filtered_wrapper"] += 1
        if "\n" in detail:
            out["multiline_reason"] += 1
        if category == "pytree_change" and "(absent)" in detail:
            parts = [p for p in detail.split("; ") if "(absent)" in p]
            if any("PyTreeDef" not in p for p in parts):
                out["false_absent"] += 1
        if "cache evicted" in detail:
            out["cache_evicted"] += 1
        if "NoneType object" in detail and "hashed by identity" in detail:
            out["none_hashed_by_identity"] += 1
        text = reason.get("explanation") or ""
        if text:
            out["with_explanation"] += 1
            named = _explained_function(text)
            own = e["function"].rsplit(".", 1)[-1]
            if named is not None and named[0] != own and (named[1], named[2]) != (definition.get("file"),
                                                                                   definition.get("line")):
                out["explanation_of_another_function"] += 1
    return out


def main(argv: list[str]) -> int:
    total: collections.Counter[str] = collections.Counter()
    for path in argv:
        c = audit(_events(path))
        total.update(c)
        print(f"{path}: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items())))
    print("total: " + ", ".join(f"{k}={v}" for k, v in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
