"""JW601 for a key the same on every iteration of the loop that calls a jitted sampler (a parameter's default
value, a name the loop never reassigns) and JW409 for an argument whose pytree structure changed between calls at
one line in a loop, on real programs under real jax.jit; their twins stay quiet (tests/fixtures/watch_loop_state*.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitscope.analyze.key_reuse import draws_from_input
from jitscope.analyze.pitfalls import finding_classes
from jitscope.analyze.structure_recompiles import per_argument
from jitscope.results import load_result

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAM = FIXTURES / "watch_loop_state.py"
CLEAN = FIXTURES / "watch_loop_state_clean.py"
CODES = ("JW409", "JW601")


def _watch(tmp_path, program: Path):
    from conftest import run_cli

    out = tmp_path / f"{program.stem}.json"
    p = run_cli("watch", "--json", str(out), "--slow-compile", "600", str(program))
    assert out.exists(), p.stderr[-2000:]
    return load_result(out)


def _expected(path: Path) -> set[tuple[str, str, int]]:
    out = set()
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"# expect: (JW\d{3}) (\S+)\s*$", line)
        if m:
            out.add((m.group(1), m.group(2), i))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("loop_state")
    return _watch(tmp, PROGRAM), _watch(tmp, CLEAN)


def test_each_pitfall_is_found_at_its_line(runs):
    found = {(f.code, f.function, f.location.line) for f in runs[0].findings if f.code in CODES}
    assert found == _expected(PROGRAM)


def test_the_twins_stay_quiet(runs):
    assert [(f.code, f.function, f.message) for f in runs[1].findings] == []


def test_messages_name_the_cause(runs):
    by = {(f.code, f.function): f for f in runs[0].findings}
    assert "default value of noisy(key=...)" in by[("JW601", "dropout")].message
    assert "SEED_KEY" in by[("JW601", "perturb")].message
    assert "carry.c: None -> ~f32[6]" in by[("JW409", "cell")].message
    assert by[("JW409", "total")].details["extra_compiles"] == 2
    assert "the same seed (5)" in by[("JW601", "augment")].message
    assert finding_classes(by[("JW409", "cell")]) == {"recompile-pytree-structure"}
    assert "prng-key-reuse" in finding_classes(by[("JW601", "perturb")])


def _jaxpr(f, *args):
    return jax.make_jaxpr(f)(*args)


def test_draws_from_input_follows_the_key_not_fold_in():
    key, x = jax.random.PRNGKey(0), jnp.zeros(3)
    assert draws_from_input(_jaxpr(lambda x, k: x + jax.random.normal(k, x.shape), x, key), 1)
    assert draws_from_input(_jaxpr(lambda x, k: x + jax.random.split(k)[0][0], x, key), 1)
    assert draws_from_input(_jaxpr(jax.jit(lambda x, k: x + jax.random.uniform(k, x.shape)), x, key), 1)
    folded = _jaxpr(lambda x, k, i: x + jax.random.normal(jax.random.fold_in(k, i), x.shape), x, key, 3)
    assert not draws_from_input(folded, 1)
    assert not draws_from_input(_jaxpr(lambda x, k: x * 2, x, key), 1)  # passed, never drawn from
    assert not draws_from_input(_jaxpr(lambda x, k: x + jax.random.normal(k, x.shape), x, key), 0)
    typed = jax.random.key(0)
    assert draws_from_input(_jaxpr(lambda k, x: x + jax.random.bernoulli(k, 0.5, x.shape), typed, x), 0)


def test_per_argument_splits_the_printed_treedef():
    text = "params: PyTreeDef({'w': *})\nextra: PyTreeDef(None)"
    assert per_argument(text) == {"params": "PyTreeDef({'w': *})", "extra": "PyTreeDef(None)"}
    assert per_argument("") == {}


EAGER_LOOP = '''
import jax.numpy as jnp
from jax import lax


def decay(x, rate):
    def body(i, v):
        return v * rate + 1.0   # a closure over the Python float rate: a constant of the program

    return lax.fori_loop(0, 5, body, x)


for rate in [0.5, 0.6, 0.7, 0.8]:
    y = decay(jnp.ones(3), rate)
print(float(y.sum()))
'''


def test_eager_loop_over_captured_constants_gets_the_eager_fix(tmp_path):
    """An eager lax loop whose closure body captures a different float at each call: JW404 (the programs differ
    only in that constant), whose fix is to jit the caller (an argument alone would still retrace the new closure)
    and whose classes include eager-control-flow-retrace."""
    program = tmp_path / "eager_loop.py"
    program.write_text(EAGER_LOOP)
    result = _watch(tmp_path, program)
    found = [f for f in result.findings if f.code == "JW404"]
    assert found, [(f.code, f.message) for f in result.findings]
    assert all(f.fix.title.startswith("jit the function that calls lax.") for f in found), found[0].fix.title
    assert all("eager-control-flow-retrace" in finding_classes(f) for f in found)
