# A file with a syntax error: exactly one finding, on the line of the error.
import jax


@jax.jit
def f(x)  # JS001
    return x + 1
