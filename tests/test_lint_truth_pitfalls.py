"""The newer rules (#13) tell the truth under real jax.jit, and their fixes run.

Each positive of JS105, JS205, JS206, JS207, JS503, JS603 and JS604 is run under real JAX and
shown to fail, to be silently wrong, or to cost what the rule says (traces counted, not timed);
each look-alike negative runs and gives the right answer. Fixes are applied with ``jitscope.lint(fix=True)``
to a copy of the fixture and the fixed module is run again. Real JAX on CPU; nothing mocked.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jitscope
from jitscope.lint import lint_source

FIXTURES = Path(__file__).resolve().parent / "lint_fixtures"
X = jnp.linspace(-1.0, 2.0, 6)


def load(path: Path, name: str | None = None):
    spec = importlib.util.spec_from_file_location(name or f"truth_{path.stem}_{id(path)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fixed_copy(code: str, tmp_path: Path, unsafe: bool = False):
    """The fixture after ``--fix`` (``--unsafe-fixes`` too with ``unsafe``), loaded as a module, and the result."""
    dst = tmp_path / f"{code}_fixed.py"
    shutil.copyfile(FIXTURES / f"{code}.py", dst)
    result = jitscope.lint([str(dst)], select=[code], fix=True, unsafe_fixes=unsafe, config=False, jobs=1)
    return load(dst), result, dst.read_text()


# -- JS603 discarded-at-update ------------------------------------------------------------------

def test_js603_discarded_update_silently_never_happens():
    mod = load(FIXTURES / "JS603.py")
    assert float(mod.reset_first(X)[0]) == float(X[0] * 2) != 0.0  # the update was dropped, no error
    assert mod.bump(4).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert mod.scale_row(jnp.ones((2, 2)), 0).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert float(mod.reset_first_ok(X)[0]) == 0.0
    assert mod.bump_ok(4).tolist() == [0.0, 5.0, 5.0, 0.0]
    assert float(mod.read_only(X)) == float(X[0])
    assert mod.table.tolist() == [0.0, 0.0, 0.0]  # the module-level update never happened either


def test_js603_safe_fix_makes_the_update_happen(tmp_path):
    mod, result, text = fixed_copy("JS603", tmp_path)
    assert result.fixes_applied == 2  # the two certain arrays; the parameter `m` (warning) is left alone
    assert "    y = y.at[0].set(0.0)  # JS603" in text and "    a = a.at[1:3].add(5.0)  # JS603" in text
    assert "    m.at[i].multiply(2.0)  # JS603" in text
    assert float(mod.reset_first(X)[0]) == 0.0
    assert mod.bump(4).tolist() == [0.0, 5.0, 5.0, 0.0]
    # left for --unsafe-fixes: the parameter `m` (might be a Ref) and the module global `table`
    assert [(f.severity, f.fix.safety) for f in result.findings] == [("warning", "unsafe"), ("error", "unsafe")]


REF_SOURCE = '''
import jax
import jax
import jax.numpy as jnp
import numpy as np
import pytest


@jax.jit
def fill(x):
    buf_ref = jax.new_ref(jnp.zeros_like(x))
    buf_ref.at[0].set(x[0])
    return buf_ref[...]


@jax.jit
def fill2(x):
    r = jax.new_ref(jnp.zeros_like(x))
    acc = r
    acc.at[1].set(x[1])
    return r[...]
'''


def test_js603_ref_look_alike_writes_in_place_and_is_not_flagged(tmp_path):
    """On a jax.Ref, `.at[i].set(v)` as a statement does write: no finding, and so no fix that would break it."""
    assert lint_source(REF_SOURCE, select=["JS603"]) == []
    path = tmp_path / "refs.py"
    path.write_text(REF_SOURCE)
    mod = load(path)
    v = jnp.array([3.0, 4.0])
    assert mod.fill(v).tolist() == [3.0, 0.0]
    assert mod.fill2(v).tolist() == [0.0, 4.0]


# -- JS105 numpy-array-traced-index -------------------------------------------------------------

@pytest.mark.parametrize("fn, args", [("lookup", (jnp.array(3),)), ("window", (X, jnp.array(1))),
                                      ("scatter", (jnp.array(1.0),)), ("accumulate", (jnp.array(1.0),))])
def test_js105_numpy_array_with_traced_index_fails_under_jit(fn, args):
    with pytest.raises((jax.errors.TracerIntegerConversionError, jax.errors.TracerArrayConversionError,
                        ValueError)):
        getattr(load(FIXTURES / "JS105.py"), fn)(*args)


def test_js105_look_alikes_work_under_jit():
    mod = load(FIXTURES / "JS105.py")
    assert float(mod.lookup_ok(jnp.array(3))) == 3.0
    assert np.allclose(mod.combine(X), np.arange(6.0) * np.asarray(X))
    assert float(mod.static_index(jnp.array(1.0), n=3)) == 4.0
    assert float(mod.not_numpy(X)) == float(X[0]) + 1.0
    assert mod.whole_array_update(jnp.array(3.0)).tolist() == [3.0, 3.0]


# -- JS604 unhashable-static-instance -----------------------------------------------------------

@pytest.mark.parametrize("fn", ["main", "main_mode"])
def test_js604_unhashable_instance_raises_under_jit(fn):
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        getattr(load(FIXTURES / "JS604.py"), fn)(X)


def test_js604_fresh_identity_instance_compiles_every_call_and_the_look_alikes_do_not():
    mod = load(FIXTURES / "JS604.py")
    mod.loop([X, X, X])
    assert mod.scaled._cache_size() == 3  # three Plain() instances: three traces and compiles
    mod.loop_ok([X, X, X])
    assert mod.scaled._cache_size() == 4  # one shared instance: one more entry, then hits
    mod.loop_tags([X, X])
    assert mod.scaled._cache_size() == 6  # @dataclass(eq=False): identity hash, one compile per instance
    a, b = mod.main_ok(X)
    assert a.tolist() == (X * 3).tolist() and b.tolist() == (X + 1).tolist()


# -- JS503 stale-closure-capture ----------------------------------------------------------------

def test_js503_rebound_closure_variable_is_silently_stale():
    mod = load(FIXTURES / "JS503.py")
    assert [float(v) for v in mod.train([X[1]] * 3)] == [float(X[1])] * 3  # lr halved twice, ignored
    first, second = mod.calibrate(X)
    assert second.tolist() == first.tolist() == (X + 1.0).tolist()  # offset = 10.0 ignored


def test_js503_look_alikes_see_the_new_value():
    mod = load(FIXTURES / "JS503.py")
    assert [float(v) for v in mod.train_ok([jnp.array(4.0)] * 3)] == [4.0, 2.0, 1.0]
    assert mod.configure_then_call(X).tolist() == (X + 10.0).tolist()
    assert mod.unrelated([X, X]) == 2


# -- JS205 jit-nested-def -----------------------------------------------------------------------

def test_js205_nested_jit_retraces_every_run_and_module_level_does_not():
    mod = load(FIXTURES / "JS205.py")
    data = [X, X, X]
    mod.train(jnp.array(2.0), data)
    mod.sweep(data)
    assert mod.TRACES.count("loss") == 3 and mod.TRACES.count("double") == 3  # one trace per run
    first = mod.train(jnp.array(2.0), data)
    assert mod.train_ok(jnp.array(2.0), data) == first  # same values
    mod.train_ok(jnp.array(2.0), data)
    assert mod.TRACES.count("loss_ok") == 1  # module level: traced once, then cached
    step = mod.make_step(3.0)
    assert [float(step(X)[1]) for _ in range(3)] == [float(X[1] * 3)] * 3
    assert mod.TRACES.count("step") == 1  # the factory's result is reused by its caller


# -- JS206 jit-rewrap-in-loop -------------------------------------------------------------------

def test_js206_rewrapping_does_not_retrace_and_the_hoisting_fixes_keep_the_values(tmp_path):
    mod = load(FIXTURES / "JS206.py")
    data = [X, X + 1, X + 2]
    before = [float(v) for v in mod.evaluate(jnp.array(0.5), data)]
    assert mod.TRACES == ["loss_fn"]  # the cache is keyed on loss_fn: no retrace (only dispatch overhead)
    assert [float(v) for v in mod.evaluate_ok(jnp.array(0.5), data)] == before
    powers = [v.tolist() for v in mod.powers(X, [1, 2, 3])]

    fixed, result, text = fixed_copy("JS206", tmp_path)
    assert result.fixes_applied == 1  # jax.jit(loss_fn) alone: safe; with static_argnums: unsafe
    assert "    loss_fn_jit = jax.jit(loss_fn)\n    for x in data:\n" in text
    assert [float(v) for v in fixed.evaluate(jnp.array(0.5), data)] == before
    assert fixed.TRACES == ["loss_fn"]

    fixed, result, text = fixed_copy("JS206", tmp_path, unsafe=True)
    assert result.fixes_applied == 2  # the comprehension has no statement to hoist before
    assert "    power_jit = jax.jit(power, static_argnums=1)\n    while i < len(ns):\n" in text
    assert [v.tolist() for v in fixed.powers(X, [1, 2, 3])] == powers
    # left: the comprehension (no statement to hoist before) and the loop that imports `jit` itself
    assert [(f.code, f.location.line, f.fix) for f in result.findings] == [("JS206", 35, None), ("JS206", 43, None)]  # +2 hoisted lines
    assert [float(v) for v in fixed.local_import(jnp.array(0.5), 2)] == [float(mod.loss_fn(0.5, 0.5))] * 2


# -- JS207 host-sync-in-loop --------------------------------------------------------------------

def test_js207_flagged_tests_are_device_values_and_the_look_alikes_are_python_values():
    mod = load(FIXTURES / "JS207.py")
    x, loss = mod.step(X)
    # What the flagged `if`/`while` tests evaluate to: device arrays, which Python must fetch to branch on.
    assert isinstance(loss < 1e-3, jax.Array) and isinstance(mod.residual(x) > 1e-2, jax.Array)
    assert isinstance(float(loss), float)
    # The look-alikes branch on Python values (a counter, a static shape) and run the same steps.
    assert mod.train_ok(X, 3).tolist() == mod.train(X, 3).tolist() == (X * 0.125).tolist()
    assert float(jnp.max(jnp.abs(mod.solve(X)))) <= 1e-2
    assert mod.check_once(X).shape == X.shape


def test_js207_a_test_that_decides_the_loop_is_info_and_one_that_guards_logging_is_a_warning():
    """A convergence test decides whether the next step is dispatched: reading it every N steps changes
    the result (the loop runs past the point it should stop), so the sync is the loop's design (info). A
    test guarding only logging can be read after the loop from the kept device values, with the same result
    and no sync per iteration (warning)."""
    from jitscope.lint import lint_source

    mod = load(FIXTURES / "JS207.py")
    x = jnp.full((4,), 0.1)
    exact = mod.train(x, 40)  # stops at the first step whose loss < 1e-3
    late = x
    for i in range(40):  # the throttled form of the same loop: test only every 10 steps
        late, loss = mod.step(late)
        if i % 10 == 9 and loss < 1e-3:
            break
    assert exact.tolist() != late.tolist()
    # the logging test: the device values kept and read once after the loop give the same list
    x2, noisy = mod.train_noisy(jnp.full((4,), 4.0), 6)
    kept, y = [], jnp.full((4,), 4.0)
    for _ in range(6):
        y, loss = mod.step(y)
        kept.append(loss)
    assert noisy == [i for i, v in enumerate(jax.device_get(kept)) if v > 1.0] and noisy
    sev = {f.location.line: f.severity for f in lint_source((FIXTURES / "JS207.py").read_text(), "JS207.py")}
    lines = (FIXTURES / "JS207.py").read_text().splitlines()
    at = {lines[n - 1].strip(): s for n, s in sev.items()}
    assert at == {"if loss < 1e-3:  # JS207": "info", "while residual(x) > 1e-2:  # JS207": "info",
                  "if float(loss) > 1e6:  # JS207": "info", "if loss > 1.0:  # JS207": "warning"}


# -- JS201: why `sum(arr)` -> `jnp.sum(arr)` stays unsafe even on a provable jax array -----------

def test_js201_fix_is_not_behaviour_preserving_even_on_a_provable_float_array():
    """A jnp-made float32 array: builtin `sum` adds left to right, `jnp.sum` reduces pairwise, so the
    bits differ; no safe variant of the fix exists (int8 wrap-around and empty arrays differ too,
    see test_lint_truth.py). The rule keeps the fix unsafe."""
    from jitscope.lint.registry import all_rules

    a = jax.random.normal(jax.random.PRNGKey(0), (65,), jnp.float32)
    builtin = jax.jit(lambda a: sum(jnp.asarray(a)))
    fixed = jax.jit(lambda a: jnp.sum(jnp.asarray(a), axis=0))
    assert builtin(a).dtype == fixed(a).dtype == jnp.float32
    assert float(builtin(a)) != float(fixed(a))  # same dtype and shape, different rounding
    assert all_rules()["JS201"].fix == "unsafe"
