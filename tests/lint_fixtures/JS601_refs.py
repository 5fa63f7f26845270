# Item assignment is how a jax.Ref is updated: never an in-place array update, never a fix.
import jax
import jax.numpy as jnp


@jax.jit
def write_first(ref: jax.Ref, v):
    ref[0] = v  # annotated as a Ref


@jax.jit
def accumulate(acc, xs):
    acc[...] = acc[...] + xs.sum()  # the Ref write idiom


@jax.jit
def fill(x):
    a = jnp.zeros(3)
    a[0] = x  # JS601
    return a


def run(xs):
    ref = jax.new_ref(jnp.zeros(3))
    write_first(ref, 2.0)
    acc = jax.new_ref(jnp.zeros(()))
    accumulate(acc, xs)
    return ref[...], acc[...]
