"""Functions matched across two real watch runs by module, qualified name and program, not by line.

Each version of a small program is written to a file and run in a module of one name under
``jitscope.watch()`` (real ``jax.jit`` on CPU); the versions move, hoist, swap and rename functions
the way pull requests do.
"""

from __future__ import annotations

import dataclasses
import types

import pytest

from jitscope.analyze.run_diff import diff_events, fail_on_violations
from jitscope.analyze.run_identity import match_functions


def run_version(tmp_path, source: str, tag: str, module: str = "train") -> list:
    """The compile events of ``train()`` of ``source``, run as module ``module`` from file ``tag/train.py``."""
    import jitscope

    path = tmp_path / tag / "train.py"
    path.parent.mkdir()
    path.write_text(source)
    mod = types.ModuleType(module)
    mod.__file__ = str(path)
    with jitscope.watch() as w:
        exec(compile(source, str(path), "exec"), mod.__dict__)
        mod.train()
    return list(w.result().events)


LOOP = '''
import jax, jax.numpy as jnp


def train():
    x = jnp.ones(4)
    for _ in range(3):
        step = jax.jit(lambda x: x * 2.0)
        step(x)
    evaluate = jax.jit(lambda x: jnp.sin(x))
    evaluate(x)
'''

HOISTED_TO_MODULE = '''
import jax, jax.numpy as jnp

# a comment that moves every line
step = jax.jit(lambda x: x * 2.0)


def train():
    x = jnp.ones(4)
    for _ in range(3):
        step(x)
    evaluate = jax.jit(lambda x: jnp.sin(x))
    evaluate(x)
'''

SWAPPED = '''
import jax, jax.numpy as jnp


def train():
    x = jnp.ones(4)
    evaluate = jax.jit(lambda x: jnp.sin(x))
    evaluate(x)
    step = jax.jit(lambda x: x * 2.0)
    for n in (4, 4, 8):
        step(jnp.ones(n))
'''


def by_program(deltas, compiles_a):
    return next(d for d in deltas if d.compiles_a == compiles_a)


def test_a_jit_hoisted_out_of_its_function_is_the_same_function_under_its_new_name(tmp_path):
    a, b = run_version(tmp_path, LOOP, "a"), run_version(tmp_path, HOISTED_TO_MODULE, "b")
    deltas = diff_events(a, b)
    step = by_program(deltas, 3)
    assert (step.function, step.function_a, step.matched_by) == ("<lambda>", "train.<locals>.<lambda>", "program")
    assert (step.compiles_b, step.status, step.new_causes) == (1, "fewer_compiles", [])
    assert step.vanished_causes == ["new_function_object"]
    evaluate = next(d for d in deltas if d is not step)
    assert (evaluate.compiles_a, evaluate.compiles_b, evaluate.function_a) == (1, 1, None)
    assert fail_on_violations(deltas, ["new-compiles", "new-causes"], 0.05) == []


def test_lambdas_of_one_function_that_swap_places_are_told_apart_by_their_programs(tmp_path):
    a, b = run_version(tmp_path, LOOP, "a"), run_version(tmp_path, SWAPPED, "b")
    matches, notes = match_functions(a, b)
    assert notes == [] and len(matches) == 2 and all(m.matched_by == "program" for m in matches)
    deltas = diff_events(a, b, matches=matches)
    step = by_program(deltas, 3)
    # the loop's step now compiles twice (one object, two shapes): 1 recompile for a new cause, fewer than 2
    assert step.compiles_b == 2 and step.new_causes == ["shape_change"] and step.recompiles_a == 2
    assert fail_on_violations(deltas, ["new-compiles"], 0.05) == []  # 1 recompile, was 2: not more
    (breach,) = fail_on_violations(deltas, ["new-causes"], 0.05)
    assert breach.startswith("train.<locals>.<lambda>: new recompile cause shape_change")


NEW_FUNCTION = LOOP + '''
    extra = jax.jit(lambda x: x - 1.0)
    for n in ({sizes}):
        extra(jnp.ones(n))
'''


@pytest.mark.parametrize("sizes,breaches", [("4,", 0), ("4, 5, 6", 2)])
def test_a_new_function_breaks_the_gate_only_by_recompiling(tmp_path, sizes, breaches):
    a = run_version(tmp_path, LOOP, "a")
    b = run_version(tmp_path, NEW_FUNCTION.format(sizes=sizes), "b")
    deltas = diff_events(a, b)
    new = next(d for d in deltas if d.status == "new")
    violations = fail_on_violations(deltas, ["new-compiles", "new-causes"], 0.05)
    assert len(violations) == breaches, violations
    if breaches:
        assert violations[0] == (f"{new.function} (new in B): 3 compiles, 2 of them recompiles (new cause: "
                                 f"{new.first_new})")
        assert new.regressed and new.new_causes == ["shape_change"]


def test_time_gate_counts_only_the_functions_in_both_runs(tmp_path):
    a = run_version(tmp_path, LOOP, "a")
    b = run_version(tmp_path, NEW_FUNCTION.format(sizes="4, 5, 6"), "b")
    extra = [e for e in b if e.definition.line > LOOP.count("\n")]  # the function NEW_FUNCTION adds
    assert len(extra) == 3
    deltas = diff_events(a, a + extra, min_seconds=0)  # the same compiles, plus a new function's
    assert fail_on_violations(deltas, ["time:0"], 0.0) == []  # the new function's seconds are not a regression
    slower = [dataclasses.replace(e, phases={k: v * 3 + 0.1 for k, v in e.phases.items()}) for e in a]
    (breach,) = fail_on_violations(diff_events(a, slower), ["time:20"], 0.05)
    assert breach.startswith("compile time of the 2 functions in both runs") and "limit 20%" in breach


def test_old_runs_without_identity_fields_fall_back_with_a_note(tmp_path):
    a, b = run_version(tmp_path, LOOP, "a"), run_version(tmp_path, SWAPPED, "b")
    no_module = [dataclasses.replace(e, module=None) for e in a]
    matches, notes = match_functions(no_module, b)
    assert len(notes) == 1 and notes[0].startswith("run A has no module names") and "file name" in notes[0]
    assert sorted((len(m.a), len(m.b)) for m in matches) == [(1, 1), (3, 2)]  # still paired by program
    bare = [dataclasses.replace(e, module=None, fingerprint=None, constants_blind_fingerprint=None) for e in a]
    bare_b = [dataclasses.replace(e, fingerprint=None, constants_blind_fingerprint=None) for e in b]
    matches, notes = match_functions(bare, bare_b)
    assert any("no program fingerprints" in n for n in notes)
    # the lambdas moved lines and lack programs: nothing can pair them, so each is new or gone
    assert sorted((len(m.a), len(m.b)) for m in matches) == [(0, 1), (0, 2), (1, 0), (3, 0)]
    same, notes = match_functions(bare, bare)  # one old run against itself: every lambda paired by line
    assert [m.matched_by for m in same] == ["line", "line"]


def test_another_module_of_the_same_name_is_another_function(tmp_path):
    a = run_version(tmp_path, LOOP, "a", module="train")
    b = run_version(tmp_path, LOOP, "b", module="evaluate")
    deltas = diff_events(a, b)  # the same code and programs, but identity never crosses modules
    assert sorted(d.status for d in deltas) == ["new", "new", "vanished", "vanished"]
