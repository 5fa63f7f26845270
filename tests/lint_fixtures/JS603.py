import jax
import jax.numpy as jnp


@jax.jit
def reset_first(x):
    y = x * 2
    y.at[0].set(0.0)  # JS603
    return y


def bump(n):
    a = jnp.zeros(n)
    a.at[1:3].add(5.0)  # JS603
    return a


@jax.jit
def scale_row(m, i):
    m.at[i].multiply(2.0)  # JS603
    return m


# ---- negatives ----

@jax.jit
def reset_first_ok(x):
    y = x * 2
    y = y.at[0].set(0.0)
    return y


def bump_ok(n):
    a = jnp.zeros(n)
    b = a.at[1:3].add(5.0)
    return b


@jax.jit
def read_only(x):
    x.at[0].get()  # reading and dropping the value is pointless but changes nothing
    return x[0]


table = jnp.zeros(3)
table.at[0].set(1.0)  # JS603
