"""HTML reports against gold files, as coverage.py tests its reporters.

Inputs are small real results of every kind (``tests/gold/<kind>.json``, recorded once by a real
run); each is rendered to HTML and compared, after scrubbing, with ``tests/gold/<kind>.html``.
A renderer change that alters a page shows up as a diff to review, not as a silent change.

Regenerate after an intended change::

    python tests/test_html_gold.py            # re-render the gold HTML from the recorded inputs
    python tests/test_html_gold.py --inputs   # also re-record the inputs with real jax (then review)
    python tests/test_html_gold.py --sized    # re-record only the real-sized inputs (SIZED)
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from pathlib import Path

import pytest

GOLD = Path(__file__).resolve().parent / "gold"
KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint", "inspect_pessimised", "inspect_lines", "merge",
         "watch_training", "inspect_model")
# Real-sized reports (tests/fixtures/report_training.py: an equinox MLP of 6 layers, a training loop with
# the usual mistakes): a 12-compile watch run and an inspect of the model's loss. Each must fit in three
# screens of a 1,400 px wide window (test_report_size.py).
SIZED = ("watch_training", "inspect_model")

_SCRUBS = [
    (re.compile(r"jitscope \d+\.\d+\.\d+[\w.+-]*"), "jitscope X.Y.Z"),
    (re.compile(r"JAX \d+\.\d+\.\d+[\w.+-]*"), "JAX X.Y.Z"),
    (re.compile(r"Python \d+\.\d+\.\d+[\w.+-]*"), "Python X.Y.Z"),
    (re.compile(r'("(?:jitscope|jax|jaxlib|python)":\s*")[^"]*(")'), r"\1X\2"),
]


def scrub(html: str) -> str:
    """Remove what changes from machine to machine or release to release: versions."""
    for pattern, repl in _SCRUBS:
        html = pattern.sub(repl, html)
    return html


def rendered(kind: str) -> str:
    import tempfile

    from jitscope.render import render
    from jitscope.results import load_result

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:  # paths show relative to the working directory when under it
        os.chdir(empty)  # (docs/cli.md "Paths"); from an empty one every recorded path shows absolute, so the
        try:  # gold does not depend on where the tests run
            return scrub(render(load_result(GOLD / f"{kind}.json"), "html"))  # inspect_lines.json: an inspect result
        finally:
            os.chdir(here)


@pytest.mark.parametrize("kind", KINDS)
def test_html_matches_gold(kind):
    want = (GOLD / f"{kind}.html").read_text(encoding="utf-8")
    got = rendered(kind)
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "gold", "now", n=1))
        pytest.fail(f"{kind}: HTML differs from tests/gold/{kind}.html (regenerate: python tests/test_html_gold.py)"
                    f"\n{diff[:6000]}")


def test_scrub_removes_versions_only():
    page = '<p>JAX 0.10.2 on cpu, Python 3.11.7, jitscope 0.1.0</p>{"jax": "0.10.2", "median": 0.5}'
    assert scrub(page) == '<p>JAX X.Y.Z on cpu, Python X.Y.Z, jitscope X.Y.Z</p>{"jax": "X", "median": 0.5}'


def _record_inputs() -> None:
    """Re-record every input with real jax (small functions, so the files stay a few KB)."""
    import jax
    import jax.numpy as jnp

    import jitscope
    from jitscope.results.demo import CaseStudy, Column

    def tiny(x, n=2):
        return jnp.sin(x) * n + sum(x[:4])  # builtin sum over 4 elements: a small bloat to report

    def make(n):
        return jnp.tanh, (jnp.ones(n, jnp.float32),)

    x = jnp.linspace(0.0, 1.0, 8, dtype=jnp.float32)
    cmp = jitscope.compare({"eager": tiny, "jit": jax.jit(tiny)}, (x,), calls=10, sample_seconds=0.01, min_samples=3)
    steady = {v.name: v.steady.median for v in cmp.variants}
    case = CaseStudy(name="tiny", title="tiny compare", lesson="jit vs eager on a tiny function", compare=cmp,
                     columns=[Column("variant", "variant", ""), Column("steady", "steady", "s")],
                     rows=[{"variant": k, "steady": v} for k, v in steady.items()], facts=steady, seconds=0.1)
    with jitscope.watch() as w:
        f = jax.jit(tiny)
        f(x)
        f(jnp.ones(5, jnp.float32))  # a recompile with a reason
    src = GOLD / "lintme.py"
    src.write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n", encoding="utf-8")
    try:
        lint = jitscope.lint([str(src)], config=False, jobs=1)
    finally:
        src.unlink()
    sys.path.insert(0, str(GOLD.parent / "fixtures"))
    import line_cost_program  # a Python loop and a builtin sum: the per-line compile cost listing

    lines = jitscope.inspect(line_cost_program.small, jnp.ones(16, jnp.float32), sample_seconds=0.01)
    results = {"inspect_lines": lines, "compare": cmp, "demo": jitscope.DemoResult(cases=[case], quick=True, seconds=0.1, env=cmp.env),
               "watch": w.result(), "inspect": jitscope.inspect(tiny, x, sample_seconds=0.01, passes=True),
               "scale": jitscope.scale(make, [4, 8], sample_seconds=0.01), "lint": lint,
               "inspect_pessimised": _pessimised_inspect()}
    _write_inputs(results)


def _record_sized() -> None:
    """The real-sized inputs: ``jitscope watch`` of the training script (a subprocess, as a user runs it)
    and ``jitscope.inspect`` of its loss on the 6-layer model, with the compile passes."""
    import json
    import os
    import subprocess
    import tempfile

    fixtures = GOLD.parent / "fixtures"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "watch.json")
        env = {**os.environ, "JAX_PLATFORMS": "cpu"}
        subprocess.run([sys.executable, "-m", "jitscope", "watch", "-q", "--json", str(out),
                        str(fixtures / "report_training.py")], check=True, env=env, cwd=tmp)
        watch = json.loads(out.read_text(encoding="utf-8"))
    assert len(watch["events"]) == 12, len(watch["events"])
    watch["programs"] = []  # the normalised StableHLO texts (35 KB): no report section shows them
    (GOLD / "watch_training.json").write_text(json.dumps(watch, indent=1) + "\n", encoding="utf-8")
    sys.path.insert(0, str(fixtures))
    import report_training

    import jitscope

    (model, x, y), _ = report_training.example_args()
    _write_inputs({"inspect_model": jitscope.inspect(report_training.loss, model, x, y, sample_seconds=0.05,
                                                     passes=True)})


def _pessimised_inspect():
    """The unrolled stencil of tests/test_pessimisation.py: the "Pessimised fusion" section, fixes measured."""
    import jax.numpy as jnp
    from test_pessimisation import simulate

    import jitscope

    return jitscope.inspect(simulate, jnp.ones((128, 128), jnp.float32), numerics=False, side_effects=False,
                            sample_seconds=0.05)


def _write_inputs(results) -> None:
    import json

    def trim(node):  # timing samples (and XLA passes): the first few are enough for a layout test, and keep files small
        if isinstance(node, dict):
            return {k: (v[:5] if k == "samples" and isinstance(v, list) else v[:30] if k == "passes" and
                        isinstance(v, list) else trim(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [trim(v) for v in node]
        return node

    for kind, result in results.items():
        data = trim(result.to_dict())
        (GOLD / f"{kind}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if "--inputs" in argv:
        _record_inputs()
    if "--inputs" in argv or "--sized" in argv:
        _record_sized()
    for kind in KINDS:
        (GOLD / f"{kind}.html").write_text(rendered(kind), encoding="utf-8")
        print(f"wrote tests/gold/{kind}.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
