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


STEP4 = 4  # a global whose value the line also writes elsewhere (``Linear(3, 4, ...)``)
SEED7 = 7  # a global whose name holds a digit


def test_a_seed_is_written_only_as_the_seeding_calls_literal():
    """Review of s35-watch8b: a global seed counted as written when its value appeared anywhere on the line (the 4 of
    ``Linear(3, 4, ...)``, the 7 of ``SEED7``). Only an integer literal passed to the seeding call writes a seed; the
    literal twin ``nnx.Rngs(4)`` on the same shape of line stays quiet."""
    from flax import nnx

    @jax.jit
    def init_step4(x):
        return nnx.Linear(3, 4, rngs=nnx.Rngs(STEP4))(x)  # step4-seed

    @jax.jit
    def init_seed7(x):
        return nnx.Linear(3, 7, rngs=nnx.Rngs(SEED7))(x)  # seed7-seed

    @jax.jit
    def init_literal(x):
        return nnx.Linear(3, 4, rngs=nnx.Rngs(4))(x)

    with jitscope.watch(slow_compile=600) as w:
        init_step4(jnp.ones((2, 3)))
        init_seed7(jnp.ones((2, 3)))
        init_literal(jnp.ones((2, 3)))
    assert sorted(_jw602(w.result())) == [(__file__, _line("step4-seed")), (__file__, _line("seed7-seed"))], \
        [f.message for f in w.result().findings]
