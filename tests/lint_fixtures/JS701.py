# JS701 observed-jax-error is reported only from a run's evidence (`jitscope lint --evidence`): no source
# alone triggers it. tests/test_lint_evidence_chain.py drives it with real runs. This file lints clean.
import jax


def step(i, x):
    return jax.lax.switch(i, [lambda x: x, lambda x: x * 2], x)
