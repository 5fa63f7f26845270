# jax.jit of a closure inside a one-shot driver: it runs once per process, so it compiles once.
import jax
import jax.numpy as jnp

COMPILES = []


def train(xs, scale):
    def loss(x):
        COMPILES.append(1)
        return jnp.sum(x * scale)

    return jax.jit(loss)(xs)  # called once, from the module-level driver code below


def main():
    return jax.jit(lambda v: v * 2)(jnp.arange(3.0))  # `main`: one run per process


def evaluate(xs):
    return jax.jit(lambda v: v.mean())(xs)  # JS204


def sweep(xs):
    return [evaluate(xs * s) for s in (1.0, 2.0, 3.0)]


if __name__ == "__main__":
    print(train(jnp.arange(4.0), 2.0), main())
