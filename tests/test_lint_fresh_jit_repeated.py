"""JS204 claims a compile on every call of the function that builds the jit. That cost is real only when the
function runs more than once with the same program: the source shows it when the function is called in a loop
(or from a function that is), and a warning says so; a `train()`/`init()` nobody here calls again compiles once,
as it would without the jit, so the finding is `info` and says the condition ("if `train` runs more than once");
inside a function that is itself jitted, the inner jit is inlined into the outer trace and compiles nothing of
its own (no finding). Each claim is run under real JAX, compiles counted with jax.monitoring."""

from __future__ import annotations

import jax.numpy as jnp
from conftest import count_compiles

from jitscope.lint import lint_source

SRC = '''
import functools
import jax
import jax.numpy as jnp

TRACES = []


def loss(p, x, k=1):
    TRACES.append("loss")
    return jnp.sum(p * x) * k


def evaluate(p, x):
    return jax.jit(functools.partial(loss, k=2))(p, x)  # called in the loop below: a compile per call


def eval_epoch(p, batches):
    return [evaluate(p, b) for b in batches]


def eval_batch(p, x):
    return jax.jit(lambda q, v: (TRACES.append("batch"), q * v)[1])(p, x)


def run_eval(p, x):
    return eval_batch(p, x)  # not in a loop here, but run_eval is


def train(p, batches):
    p_eval = jax.jit(functools.partial(loss, k=3))  # built once per run of train, nobody here calls train twice
    return p_eval(p, batches[0])


def fit(p, batches):
    for r in [train(p, batches)]:  # the iterable is made once per loop, not once per iteration
        TRACES.append(r)
    return [r for r in train(p, batches)[None]]


@jax.jit
def outer(p, x):
    return jax.jit(lambda q: (TRACES.append("inner"), q + 1)[1])(p) * x  # inlined into outer's trace


class Model:
    def predict(self, p, x):
        return jax.jit(lambda q, v: (TRACES.append("predict"), q - v)[1])(p, x)


def serve(model, p, xs):
    out = []
    for x in xs:
        out.append(model.predict(p, x))
        out.append(run_eval(p, x))
    return out
'''


def _findings():
    return {(f.location.function, f.severity) for f in lint_source(SRC, "m.py", select=["JS204"])}


def test_severity_follows_what_the_source_shows_about_repeated_calls():
    got = _findings()
    assert got == {("evaluate", "warning"), ("eval_batch", "warning"), ("predict", "warning"),
                   ("train", "info")}, got
    info = next(f for f in lint_source(SRC, "m.py", select=["JS204"]) if f.location.function == "train")
    assert "if `train` runs more than once" in info.message


def test_the_claims_hold_under_real_jax():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    p, xs = jnp.float32(2.0), [jnp.arange(3.0) + i for i in range(3)]
    ns["evaluate"](p, xs[0])  # warm the eager ops used around the jit
    # called in a loop: a new partial each call, a trace and a compile each call
    ns["TRACES"].clear()
    assert count_compiles(lambda: ns["eval_epoch"](p, xs)) == 3 and ns["TRACES"].count("loss") == 3
    ns["TRACES"].clear()
    model = ns["Model"]()
    ns["serve"](model, p, xs)
    assert ns["TRACES"].count("predict") == 3 and ns["TRACES"].count("batch") == 3
    # one run of train: one trace, as one eager call would be
    ns["TRACES"].clear()
    ns["train"](p, xs)
    assert ns["TRACES"] == ["loss"]
    ns["TRACES"].clear()
    ns["fit"](p, xs)
    assert ns["TRACES"].count("loss") == 2  # one per call of train, each outside the loops
    # the inner jit under an outer jit: traced with the outer, nothing compiled on later calls
    ns["TRACES"].clear()
    assert count_compiles(lambda: ns["outer"](p, xs[0])) == 1
    assert count_compiles(lambda: [ns["outer"](p, x) for x in xs]) == 0
    assert ns["TRACES"] == ["inner"]
