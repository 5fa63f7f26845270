"""Runtime findings that misfired or were missed on the held-out pitfall cases (issue #24, items 1-3), each
against real JAX: the program is in tests/fixtures/watch_misfires.py (not a test file: a print in a test
file is deliberate, jaxmodel/deliberate.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import jitscope

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAM = FIXTURES / "watch_misfires.py"


def _line(marker: str) -> int:
    for i, text in enumerate(PROGRAM.read_text().splitlines(), 1):
        if f"marker: {marker}" in text:
            return i
    raise AssertionError(marker)


@pytest.fixture
def misfires(fixtures_on_path):
    import watch_misfires

    return watch_misfires


@pytest.mark.parametrize("partial", [False, True])
def test_print_in_flax_module_call_under_jit_of_apply(misfires, partial):
    pytest.importorskip("flax.linen")
    with jitscope.watch(slow_compile=600) as w:
        misfires.flax_apply_print(partial=partial)
    r = w.result()
    found = [(f.code, f.location.line) for f in r.findings if f.code == "JW201"]
    assert found == [("JW201", _line("flax-print"))], found
    user = [e for e in r.events if e.function.endswith(".apply")]
    assert len(user) == 1 and user[0].definition.function.endswith("MLP.__call__"), [
        (e.function, e.definition) for e in r.events]


def test_stale_attribute_of_identity_hashed_static_self(misfires):
    with jitscope.watch(slow_compile=600) as w:
        before, after, _keep = misfires.static_self_mutated()
    assert float(after[0]) == float(before[0]) == 2.0  # JAX reused the stale program: the finding is true
    found = [f for f in w.result().findings if f.code == "JW302"]
    assert [(f.details["name"], f.details["argument"], f.location.line) for f in found] == [
        ("scale", "self", _line("self-read"))], [f.message for f in found]
    assert "__hash__" in found[0].fix.title


def test_attribute_the_trace_does_not_read_changing_is_quiet(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.static_self_mutated(change_read=False)
    assert [f.message for f in w.result().findings] == []


@pytest.mark.parametrize("steps", [3, 9])
def test_bound_method_jitted_per_iteration_names_the_new_object(misfires, steps):
    """9 steps: JAX explains only a function's first misses; the later repeats have no explanation of their own
    and must not be called "nothing differed" (a cleared cache)."""
    with jitscope.watch(slow_compile=600) as w:
        misfires.bound_method_rejitted(steps)
    found = [f for f in w.result().findings if f.code == "JW403"]
    assert len(found) == steps - 1 and all(f.location.line == _line("rejit-method") for f in found), found
    for f in found:
        assert "bound method" in f.details["key_difference"] and "nothing" not in f.details["key_difference"]
        assert "jax.jit(obj.method) outside the loop" in f.fix.title


def test_changing_static_field_names_the_field_not_the_container(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.static_field_changing()
    found = [f for f in w.result().findings if f.code == "JW403"]
    assert len(found) == 2, [f.message for f in w.result().findings]
    for f in found:
        assert f.details["key_difference"].startswith("a static field of a pytree node"), f.message
        assert "pytree leaf" in f.fix.title and "container" not in f.fix.title
        assert "static data" in f.details["differences"][0]


def test_small_constant_is_not_advice_but_its_staleness_is(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.small_global_rebound()
    found = [(f.code, f.location.line) for f in w.result().findings]
    assert found == [("JW302", _line("small-table"))], [f.message for f in w.result().findings]


def test_ragged_last_batch_in_a_loop_is_a_shape_recompile(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.ragged_batches()
    found = [f for f in w.result().findings if f.code == "JW405"]
    assert [(f.location.line, f.details["pattern"]) for f in found] == [(_line("ragged-call"), "ragged-batch")], [
        f.message for f in w.result().findings]
    assert "drop the remainder" in found[0].fix.title and "(64,8), (64); (8,8), (8)" in found[0].message


def test_two_shapes_from_two_call_sites_are_by_design(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.train_and_eval_batches()
    assert [f.code for f in w.result().findings] == []


def test_shapes_a_test_picks_are_not_advice(misfires):
    import jax.numpy as jnp

    with jitscope.watch(slow_compile=600) as w:
        for n in (3, 5, 7):  # a test exercising three sizes on purpose, from a loop in the test file
            misfires.sgd_step(jnp.zeros(8), jnp.ones((n, 8)), jnp.ones(n))
    assert [f.code for f in w.result().findings] == []


def test_reads_batched_every_100_steps_are_not_a_round_trip_per_iteration(misfires, capsys):
    with jitscope.watch(slow_compile=600) as w:
        misfires.reads_every_100_steps()
    assert [f.message for f in w.result().findings if f.code == "JW502"] == []


def test_a_read_in_every_iteration_still_is(misfires):
    with jitscope.watch(slow_compile=600) as w:
        misfires.reads_every_step()
    found = [f for f in w.result().findings if f.code == "JW502"]
    assert [f.location.line for f in found] == [_line("read-per-step")], [f.message for f in found]
    assert found[0].details["iterations"] == found[0].details["loop_iterations"] == 60


def test_a_key_reused_across_tests_is_not_a_reuse_within_one_it_is(misfires):
    import jax

    from jitscope._watch import running_test

    key = jax.random.key(0)  # a module- or session-scoped fixture's key
    with jitscope.watch(slow_compile=600) as w:
        with running_test("test_a.py::test_one"):
            misfires.draw(key)
        with running_test("test_a.py::test_two"):
            misfires.draw(key)
    assert [f.code for f in w.result().findings] == []
    with jitscope.watch(slow_compile=600) as w:
        with running_test("test_a.py::test_three"):
            misfires.draw(key)
            misfires.draw(key)
    assert [(f.code, f.location.line) for f in w.result().findings] == [("JW601", _line("draw"))]


def test_a_string_jax_builds_for_its_debug_info_is_not_the_programs_read(misfires):
    """JAX's debug info formats the function it transforms (str(fun)); a pullback closing over a dataclass
    prints the dataclass's arrays, a read per call that no line of the program asked for."""
    with jitscope.watch(slow_compile=600) as w:
        misfires.transform_with_dataclass_closure()
    assert [f.message for f in w.result().findings if f.code == "JW502"] == []


def test_the_programs_own_print_of_a_dataclass_per_step_is(misfires, capsys):
    with jitscope.watch(slow_compile=600) as w:
        misfires.print_dataclass_per_step()
    found = [f for f in w.result().findings if f.code == "JW502"]
    assert [f.location.line for f in found] == [_line("repr-per-step")], [f.message for f in found]


def test_a_rebuilt_wrapper_is_named_without_dumping_its_internal_bindings(misfires):
    """jit(grad(f)) built per iteration: equal bindings, but they are grad's internal cells (JAX's messages,
    traceback helpers): the finding names the cause and leaves the dump to the JSON's events."""
    with jitscope.watch(slow_compile=600) as w:
        misfires.grad_rejitted()
    found = [f for f in w.result().findings if f.code == "JW403"]
    assert found and all(f.location.line == _line("rejit-grad") for f in found), found
    for f in found:
        assert "a new function object" in f.message
        assert "_simplified_tb_msg" not in f.message and len(f.message) < 400, f.message


def test_html_says_one_fix_as_the_console_does_and_shows_code_literals(misfires):
    """The HTML of a run with one fix does not say "All 1 fixes applied" (the console says nothing), and a
    code's summary shows its reST literals (``float``) as code."""
    from jitscope.render import render

    with jitscope.watch(slow_compile=600) as w:
        misfires.grad_rejitted(4)
        misfires.reads_every_step()
    result = w.result()
    html = render(result, "html")
    assert len(result.fixes) == 1, result.fixes
    assert "fixes applied" not in html
    assert "<code>float</code>" in html and "``" not in html
