"""`lint --evidence` with the errors JAX raised OUTSIDE a trace (issue #25 item 3): an int too large for int32
parsed at a jitted call or converted by ``jnp.array``, the leak checker's plain ``Exception`` ("Leaked trace"),
loop carries whose dtypes differ. Real programs under `jitscope watch --trace-evidence` (a subprocess, real
jax.jit on CPU), caught by the program or the error it exits on; each becomes an observed finding under the
static rule of its class at the innermost frame of the user's code (the leak: in the function whose trace
leaked); the clean twins and NumPy's own overflow (no JAX on the way) give none.
"""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from test_lint_evidence_events import _lint, _run

from jitscope.analyze import evidence_events

CAUGHT = '''\
import jax
import jax.numpy as jnp

SEEN = []


@jax.jit
def shift(x, n):
    return x + n


def offset(x, n):
    return shift(x, n)


def remember(x):
    SEEN.append(x * 2)
    return x + 1


def main():
    x = jnp.arange(3, dtype=jnp.int32)
    try:
        offset(x, 2**40)
    except OverflowError as e:
        print("caught", type(e).__name__)
    try:
        with jax.checking_leaks():
            jax.jit(remember)(1.0)
    except Exception as e:
        print("caught", type(e).__name__)
    try:
        positive(x)
    except Exception as e:
        print("caught", type(e).__name__)


@jax.jit
def positive(x):
    if x.sum() > 0:
        return x
    return -x


main()
'''
CLEAN = (CAUGHT.replace("offset(x, 2**40)", "offset(x, 2**20)").replace("SEEN.append(x * 2)", "SEEN.append(x.shape)")
         .replace("    if x.sum() > 0:\n        return x\n    return -x", "    return jnp.where(x.sum() > 0, x, -x)"))

EXITS = '''\
import sys

import jax.numpy as jnp


def counts(n):
    return jnp.array(n, dtype=jnp.int32)


try:
    counts(2**40)
except Exception as e:
    print("RESULT:", type(e).__name__)
    sys.exit(1)
'''
NUMPY_ONLY = EXITS.replace("import jax.numpy as jnp", "import numpy as jnp")


@pytest.fixture(scope="module")
def caught(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("raised")
    return _run(tmp, "caught", CAUGHT), _run(tmp, "clean", CLEAN)


def _events(ev) -> list[dict]:
    return json.loads(ev.read_text()).get("events") or []


def test_errors_raised_outside_a_trace_are_recorded_at_the_users_line(caught):
    (prog, ev), _ = caught
    got = {(e["code"], e["line"], e["error"], e["runtime_code"]) for e in _events(ev)}
    assert ("JS306", 13, "OverflowError", "raised") in got  # the innermost user frame: the call in offset
    assert ("JS403", 16, "Exception", "raised") in got  # the leak checker names the function whose trace leaked
    # a failed jitted trace is JW101's (its class decides: TracerBoolConversionError is JS101, not the
    # ConcretizationTypeError it subclasses); the boundary probe's record of the same error is no second event
    line = CAUGHT.splitlines().index("    if x.sum() > 0:") + 1
    assert [(c, e) for c, ln, e, _ in got if ln == line] == [("JS101", "TracerBoolConversionError")]
    from test_lint_evidence import _validate_file

    _validate_file(json.loads(ev.read_text()))


def test_lint_reports_them_certain_under_the_static_rules_class(caught):
    (prog, ev), _ = caught
    found = {(f["code"], f["location"]["line"]): f for f in _lint(prog, "--evidence", str(ev))}
    over = found[("JS306", 13)]
    assert over["severity"] == "error" and over["confidence"] == "certain"
    assert "JAX raised OverflowError here (in `offset`)" in over["message"] and "while tracing" not in over["message"]
    # the leak is reported once, on the store the static rule found in that function (not at the def)
    leaks = [f for f in found.values() if f["code"] in ("JS402", "JS403")]
    assert [(f["location"]["line"], f["severity"]) for f in leaks] == [(17, "error")]
    assert "leak checker" in leaks[0]["message"] and leaks[0]["details"]["observed_event"]["error"] == "Exception"
    # without the run, nothing says the int overflows (it is built at run time)
    assert ("JS306", 13) not in {(f["code"], f["location"]["line"]) for f in _lint(prog, "--no-evidence")}


def test_the_clean_twin_records_none(caught):
    _, (prog, ev) = caught
    assert not _events(ev)
    assert not [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS306" or "observed_event" in f["details"]]


def test_the_overflow_a_program_exits_on_is_observed(tmp_path):
    """`jnp.array(2**40, dtype=int32)` raises NumPy's OverflowError inside JAX's code (no JAX API boundary: only
    the error the program died of shows it); NumPy alone, with no JAX on the way, is not jit's and gives none."""
    prog, ev = _run(tmp_path, "exits", EXITS)
    (event,) = _events(ev)
    assert (event["code"], event["line"], event["error"], event["runtime_code"]) == ("JS306", 7, "OverflowError", "crash")
    (f,) = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS306"]
    assert f["location"]["line"] == 7 and f["severity"] == "error"
    _, ev = _run(tmp_path, "numpy_only", NUMPY_ONLY)
    assert not _events(ev)


def _raised(fn) -> BaseException:
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("JAX raised nothing")


def test_the_classes_are_jaxs_own_words():
    """Real errors from this JAX: a scan carry whose dtype changes is JS305; the leak checker is JS403 whatever its
    class; a shape-only carry mismatch, and the program's own OverflowError, are no rule's."""
    def rule(e):
        hit = evidence_events.raised_rule(type(e).__name__, [c.__name__ for c in type(e).__mro__], str(e))
        return hit[0] if hit else None

    assert rule(_raised(lambda: lax.scan(lambda c, x: (c + 1.5, x), jnp.int32(0), jnp.ones(3)))) == "JS305"
    assert rule(_raised(lambda: lax.scan(lambda c, x: (jnp.zeros(2), x), jnp.zeros(3), jnp.ones(3)))) is None
    assert rule(_raised(lambda: jax.jit(lambda x, n: x + n)(jnp.ones(2, jnp.int32), 2**40))) == "JS306"
    box = []

    def keep(x):
        box.append(x)
        return x

    with pytest.raises(Exception) as leak:  # noqa: B017,PT011 - the leak checker raises a plain Exception
        with jax.checking_leaks():
            jax.jit(keep)(1.0)
    assert rule(leak.value) == "JS403"
    assert rule(OverflowError("Python integer 1099511627776 out of bounds for int32")) == "JS306"
    assert evidence_events.raised_rule("OverflowError", ["OverflowError"], "Python integer 1099511627776 out of "
                                       "bounds for int32", through_jax=False) is None
