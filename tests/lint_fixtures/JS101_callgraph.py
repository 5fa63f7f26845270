# A helper is traced when traced code calls it with traced values (the call graph).
import jax
import jax.numpy as jnp


def normalize(x):
    if x.sum() > 0:  # JS101
        return x / x.sum()
    return x


def repeat(x, times, verbose):
    if verbose:
        print("repeating", times, "times")
    for _ in range(times):  # `times` is the caller's Python int
        x = x * 2
    return x


@jax.jit
def step(x):
    return repeat(normalize(x), 3, verbose=False)


@jax.jit
def step_ok(x):
    return repeat(jnp.where(x.sum() > 0, x / x.sum(), x), 2, False)


class Model:
    def __call__(self, x):
        return jax.jit(self.forward)(x)

    def forward(self, x):
        return self.gate(x)

    def gate(self, x):
        if x.mean() > 0.5:  # JS101
            return x
        return -x


def eager_only(x):
    if x.sum() > 0:  # never called from traced code
        return x
    return -x
