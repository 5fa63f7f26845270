"""The linter never crashes: generated and mutated source, and the whole standard library."""

from __future__ import annotations

import random
import sysconfig
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitscope
from jitscope.lint import lint_source

FIXTURES = sorted((Path(__file__).resolve().parent / "lint_fixtures").glob("JS*.py"))
SOURCES = [p.read_bytes() for p in FIXTURES]
TOKENS = [b"(", b")", b"[", b"]", b":", b"=", b"if ", b"for ", b" in ", b"jnp.", b"jax.jit", b"lambda x: ",
          b"\n", b"    ", b"@", b"global g\n", b"*", b"**", b",", b"x", b"sum(", b"#", b"\"", b"'", b"\\",
          b"\xff", b"async ", b"await ", b"match ", b"case ", b":=", b"yield", b"nonlocal q\n", b"\t"]


def _check(findings) -> None:
    for f in findings:
        assert f.code.startswith("JS") and f.location is not None and f.location.line >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SOURCES) - 1), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 3),
                                                             st.sampled_from(TOKENS)), max_size=6))
def test_mutated_fixtures_never_crash(index, edits):
    data = bytearray(SOURCES[index])
    for pos, kind, tok in edits:
        pos = pos % (len(data) + 1)
        if kind == 0:
            data[pos:pos] = tok  # insert
        elif kind == 1:
            del data[pos:pos + len(tok)]  # delete
        elif kind == 2:
            data[pos:pos + len(tok)] = tok  # overwrite
        else:
            line_start = data.rfind(b"\n", 0, pos) + 1
            data[line_start:line_start] = b"    "  # re-indent
    _check(lint_source(bytes(data), "mutated.py"))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_arbitrary_text_never_crashes(text):
    _check(lint_source(text, "text.py"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_token_soup_never_crashes(tokens):
    _check(lint_source(b"import jax\nimport jax.numpy as jnp\n@jax.jit\ndef f(x):\n" + b"".join(tokens), "soup.py"))


def test_deep_nesting_is_a_finding_not_a_crash():
    src = "import jax\n@jax.jit\ndef f(x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    findings = lint_source(src, "deep.py")
    assert [f.code for f in findings] in ([], ["JS001"])
    src2 = "import jax\n@jax.jit\ndef f(x):\n    return x" + " + x" * 20000 + "\n"
    _check(lint_source(src2, "long.py"))


def test_standard_library_never_crashes():
    """The whole stdlib, in parallel: every file ends with findings or a parse finding, never an exception."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts]
    random.Random(0).shuffle(files)
    started = time.perf_counter()
    result = jitscope.lint([str(p) for p in files], jobs=2, config=False)
    elapsed = time.perf_counter() - started
    assert result.files_checked == len(files) > 500
    # lib2to3 and test data deliberately hold Python 2 and broken files: parse findings, not crashes.
    parse_errors = [f for f in result.findings if f.code in ("JS001", "JS002")]
    assert len(parse_errors) < 0.05 * len(files)
    print(f"stdlib: {len(files)} files, {result.lines_checked} lines in {elapsed:.1f} s, "
          f"{len(result.findings)} findings, {len(parse_errors)} parse findings")


def test_standard_library_sample_with_every_function_traced():
    """Every rule runs over real, varied code (a third of the stdlib, every function assumed traced)."""
    from jitscope.lint import runner
    from jitscope.lint.registry import all_rules

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(str(p) for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)[::3]
    enabled = frozenset(all_rules())
    # Parallel when this process has not imported JAX (else the runner stays in-process).
    outcomes = list(runner.run([(f, enabled) for f in files], jobs=2, assume_traced=True))
    assert len(outcomes) == len(files)
    for o in outcomes:
        _check(o.findings)
    assert sum(len(o.findings) for o in outcomes) > 1000


def test_assume_traced_mode_finds_what_it_should():
    findings, _ = __import__("jitscope.lint.engine", fromlist=["lint_text"]).lint_text(
        "def f(x):\n    if x > 0:\n        print(x)\n", "m.py", {"JS101", "JS401"}, assume_traced=True)
    assert [f.code for f in findings] == ["JS101", "JS401"]


@pytest.mark.parametrize("src", [
    "def f(*, b=1, c):\n    return b + c\n",
    "@(yield)\ndef f(): pass\n",
    "x = [i async for i in y]\n",
    "class A[T]: pass\n",
    "\ufeffimport jax\n",
    "import jax\r\n@jax.jit\r\ndef f(x):\r\n    if x > 0:\r\n        return x\r\n",
    "import jax\n@jax.jit\ndef f(x):\n\x0c    if x > 0:\n        return x\n",
])
def test_edge_sources(src):
    _check(lint_source(src, "edge.py"))
    _check(lint_source(src.encode("utf-8"), "edge.py"))
