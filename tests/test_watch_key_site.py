"""A finding's line is the program's own frame: a constant key drawn from inside an installed library (flax's or
equinox's initialisers) is filed at the program's line that called the library, never inside the library.

Held-out class (issue #24, suites7): JW602 located inside flax (a library frame) for a key baked into a test's jitted
init. The draw's innermost frame that is not JAX's is flax's; the user acts at the line that passed the key. The
clean twin passes the key as an argument: no finding.
"""

from __future__ import annotations

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp

import jitscope

KEY = jax.random.key(0)


def _jw602(run) -> list:
    return [(f.location.file, f.location.line) for f in run.findings if f.code == "JW602"]


def _line(marker: str) -> int:
    for i, text in enumerate(open(__file__).read().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return i
    raise AssertionError(marker)


def test_a_constant_key_drawn_inside_flax_is_filed_at_the_programs_line():
    model = nn.Dense(4)

    @jax.jit
    def init(x):
        return model.init(KEY, x)  # flax-init

    with jitscope.watch(slow_compile=600) as w:
        init(jnp.ones((2, 3)))
    assert _jw602(w.result()) == [(__file__, _line("flax-init"))], [f.message for f in w.result().findings]


def test_the_same_inside_equinox_and_the_key_as_an_argument_is_quiet():
    @jax.jit
    def build(x):
        return eqx.nn.Linear(3, 4, key=KEY)(x)  # eqx-init

    @jax.jit
    def build_with(x, key):
        return eqx.nn.Linear(3, 4, key=key)(x)

    with jitscope.watch(slow_compile=600) as w:
        build(jnp.ones(3))
        build_with(jnp.ones(3), jax.random.key(1))
    assert _jw602(w.result()) == [(__file__, _line("eqx-init"))], [f.message for f in w.result().findings]


STEP = 7  # a module global read at trace time: the seed is baked, not chosen on the line


def test_a_literal_seed_passed_to_a_library_that_seeds_the_key_is_a_fixed_seed():
    """Held-out class (issue #24): ``nnx.Rngs(0)`` in a test's jitted init was JW602 inside flax (flax's own line seeds
    ``jax.random.key(seed)``, where no literal is written). The seed is written on the program's line that passed it:
    deliberate. The same call seeded from a module global stays a finding, filed at the program's line."""
    from flax import nnx

    @jax.jit
    def init(x):
        return nnx.Linear(3, 4, rngs=nnx.Rngs(0))(x)

    @jax.jit
    def init_global(x):
        return nnx.Linear(3, 4, rngs=nnx.Rngs(STEP))(x)  # global-seed

    with jitscope.watch(slow_compile=600) as w:
        init(jnp.ones((2, 3)))
        init_global(jnp.ones((2, 3)))
    assert _jw602(w.result()) == [(__file__, _line("global-seed"))], [f.message for f in w.result().findings]
