# `import jax.numpy as np` makes np mean jax.numpy: nothing here is NumPy.
import jax
import jax.numpy as np


@jax.jit
def f(x):
    return np.sin(x) + np.sum(x)
