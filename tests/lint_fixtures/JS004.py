# JS004 internal-error has no input that triggers it: it reports a bug of jitscope itself (a rule that
# raised). tests/test_lint_internal_error.py drives it with a rule made to fail. This file lints clean.
import jax.numpy as jnp

x = jnp.ones(3)
