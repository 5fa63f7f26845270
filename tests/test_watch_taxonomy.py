"""The taxonomy's runtime findings (docs/pitfalls.md: JW102-JW106, JW405-JW408, JW502-JW505, JW601-JW604,
and JW201 under every wrapper), on real programs under real jax.jit.

tests/fixtures/watch_taxonomy.py marks each expected finding with ``# expect: CODE function`` (several
separated by ``;``) on the line it must be reported at; tests/fixtures/watch_taxonomy_clean.py holds the
look-alikes, which must trigger nothing. The dispatch-bound loop (JW504) and the persistent cache (JW408)
have their own programs, each with a look-alike mode.
"""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.analyze.pitfalls import finding_classes
from jitscope.analyze.runtime_codes_taxonomy import TAXONOMY_CODES
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAM = FIXTURES / "watch_taxonomy.py"
CLEAN = FIXTURES / "watch_taxonomy_clean.py"
DISPATCH = FIXTURES / "watch_dispatch_bound.py"
CACHE = FIXTURES / "watch_persistent_cache.py"
DISABLED = FIXTURES / "watch_jit_disabled.py"
NEW = {t[0] for t in TAXONOMY_CODES}


def _expected(path: Path) -> set[tuple[str, str, int]]:
    out = set()
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"# expect: (JW\d{3} \S+(?:; JW\d{3} \S+)*)\s*$", line)
        if m:
            for item in m.group(1).split(";"):
                code, fn = item.split()
                out.add((code, fn, i))
    return out


def _found(findings) -> set[tuple[str, str, int]]:
    return {(f.code, f.function, f.location.line if f.location else 0) for f in findings}


def _watch(tmp_path, program: Path, *args: str):
    from conftest import run_cli

    out = tmp_path / f"{program.stem}.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program), *args)
    assert out.exists(), p.stderr[-2000:]
    return load_result(out)


@pytest.fixture(scope="module")
def taxonomy_run(tmp_path_factory):
    return _watch(tmp_path_factory.mktemp("taxonomy"), PROGRAM)


def test_each_pitfall_is_reported_at_its_line(taxonomy_run):
    found = _found(taxonomy_run.findings)
    missing = _expected(PROGRAM) - found
    assert not missing, f"missing {sorted(missing)}; found {sorted(found)}"


def test_no_finding_beyond_the_marked_ones(taxonomy_run):
    extra = _found(taxonomy_run.findings) - _expected(PROGRAM)
    assert not extra, sorted(extra)


def test_findings_carry_fix_evidence_and_class(taxonomy_run):
    for f in taxonomy_run.findings:
        if f.code not in NEW:
            continue
        assert f.fix is not None and f.fix.title, f.code
        assert f.details.get("evidence"), f.code
        assert finding_classes(f), f.code
    errors = {f.code for f in taxonomy_run.findings if f.severity == "error"}
    assert errors == {"JW101", "JW102", "JW103", "JW104", "JW105", "JW106"}


def test_look_alikes_trigger_nothing(tmp_path):
    result = _watch(tmp_path, CLEAN)
    assert len(result.events) >= 10  # the look-alikes did compile
    assert result.findings == [], sorted(_found(result.findings))


def test_dispatch_bound_loop_is_reported_and_one_jit_is_not(tmp_path):
    bound = _watch(tmp_path, DISPATCH)
    found = {(c, fn, line) for c, fn, line in _found(bound.findings) if c == "JW504"}
    assert found == _expected(DISPATCH), sorted(_found(bound.findings))
    f = next(f for f in bound.findings if f.code == "JW504")
    assert set(f.details["callees"]) == {"shift", "halve", "wave"}
    assert f.details["share"] >= 0.3
    one = _watch(tmp_path, DISPATCH, "--one-jit")
    assert one.findings == [], sorted(_found(one.findings))


def test_persistent_cache_below_threshold_and_written(tmp_path):
    skipped = _watch(tmp_path, CACHE)
    assert _found(skipped.findings) == _expected(CACHE)
    f = skipped.findings[0]
    assert f.details["cause"] == "below_threshold" and f.details["compiles"] == 2
    written = _watch(tmp_path, CACHE, "--write-all")
    assert written.findings == [], sorted(_found(written.findings))


# --- trace-time effects under every wrapper (in-process) ------------------------------------------------
def test_print_and_mutation_seen_under_equinox_flax_and_pmap_wrappers(fixtures_on_path):
    pytest.importorskip("equinox")
    pytest.importorskip("flax.nnx")
    import taxonomy_effects as prog

    history = []
    eqx_step, nnx_step, eqx_record, pmapped = prog.wrapped(history)
    with jitscope.watch() as w:
        for _ in range(2):
            eqx_step(jnp.ones(3), 2)
            nnx_step(jnp.ones(3))
            eqx_record(jnp.ones(3))
            pmapped(jnp.ones((1, 3)))
    lines = {m: i for i, t in enumerate(Path(prog.__file__).read_text().splitlines(), 1)
             for m in ("eqx-print", "nnx-print", "eqx-append", "pmap-print") if t.rstrip().endswith(f"# {m}")}
    got = {(f.function.rsplit(".", 1)[-1], f.location.line, f.details["kind"]) for f in w.result().findings
           if f.code == "JW201"}
    assert got == {("eqx_step", lines["eqx-print"], "print"), ("nnx_step", lines["nnx-print"], "print"),
                   ("eqx_record", lines["eqx-append"], "container"), ("per_device", lines["pmap-print"], "print")}


def test_a_trace_time_effect_in_a_test_file_is_deliberate():
    """The same print in a test file is the test's own business (a trace counter, a shape probe): no JW201."""
    @jax.jit
    def f(x):
        print("tracing", x)
        return x + 1

    with jitscope.watch() as w:
        f(1.0)
    assert [x.code for x in w.result().findings] == []


# --- what the probes must never do ----------------------------------------------------------------------
def test_probes_change_nothing_the_program_sees():
    """The hooks re-raise JAX's own exceptions and return JAX's own values; after the watch they are gone."""
    from jax._src import array, traceback_util
    from jax._src.random import core as random_core

    before = (traceback_util._filtering_mode, array.ArrayImpl.__dict__["_value"],
              array.ArrayImpl.__dict__["__setitem__"], random_core._check_prng_key)
    x = jnp.arange(4.0)
    with jitscope.watch():
        with pytest.raises(TypeError, match="immutable"):
            x[0] = 1.0
        assert float(x[1]) == 1.0
        assert jax.random.normal(jax.random.PRNGKey(0), (2,)).shape == (2,)
        with pytest.raises(TypeError, match="abstract array"):
            jax.jit(lambda s: s)("text")
    after = (traceback_util._filtering_mode, array.ArrayImpl.__dict__["_value"],
             array.ArrayImpl.__dict__["__setitem__"], random_core._check_prng_key)
    assert after == before


def test_jitscope_own_analysis_errors_are_not_the_programs(fixtures_on_path):
    """A global that holds a tracer after the trace (the program leaked it) must neither make jitscope's own
    constant analysis raise (which lost the trace's other findings) nor be reported as the program's JAX
    error (jitscope's own call of JAX is not the program's)."""
    import taxonomy_effects as prog

    f = prog.leaky()
    with jitscope.watch() as w:
        f(1.0)
    found = [(f.code, f.location.line) for f in w.result().findings]
    line = next(i for i, t in enumerate(Path(prog.__file__).read_text().splitlines(), 1) if t.rstrip().endswith("# leak-store"))
    assert found == [("JW201", line)], found


def test_an_error_the_program_asserts_is_not_a_finding():
    """`with pytest.raises(...)` tests an error path (library test suites do it all the time); the same
    error caught by try/except is a pitfall the program fell into (JW103)."""
    f = jax.jit(lambda s: s)
    with jitscope.watch() as w:
        with pytest.raises(TypeError):
            f("text")
        try:
            f("text")  # caught-here
        except TypeError:
            pass
    line = next(i for i, t in enumerate(Path(__file__).read_text().splitlines(), 1) if t.rstrip().endswith("# caught-here"))
    assert [(x.code, x.location.line) for x in w.result().findings] == [("JW103", line)]


def test_jit_left_disabled_is_reported_and_a_scoped_block_is_not(tmp_path):
    """JW509 reads JAX's own flag at the end of the run: on (left on by config.update), every jitted call ran op by
    op and no program of the script's function was compiled; a `with jax.disable_jit():` block is a scoped choice."""
    left = _watch(tmp_path, DISABLED)
    assert _found(left.findings) == _expected(DISABLED), sorted(_found(left.findings))
    assert not [e for e in left.events if e.function == "step"]  # nothing of step compiled: it ran eagerly
    scoped = _watch(tmp_path, DISABLED, "--scoped")
    assert scoped.findings == [], sorted(_found(scoped.findings))
    assert [e for e in scoped.events if e.function == "step"]  # after the block, step compiled as usual


def test_a_large_program_compiled_before_the_loop_is_not_dispatch_bound(tmp_path):
    """JW504's size rule reads the programs a line's callees compiled wherever they compiled: a warm-up call
    before the loop compiles `heavy` (30M elements), and the loop's time is its work, not dispatch."""
    result = _watch(tmp_path, FIXTURES / "watch_big_after_warmup.py")
    assert [e for e in result.events if e.function == "heavy"]
    assert not [f for f in result.findings if f.code == "JW504"], sorted(_found(result.findings))
