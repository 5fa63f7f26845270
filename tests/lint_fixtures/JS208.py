from functools import partial

import jax


@partial(jax.jit, static_argnames="t")  # JS208
def step(x, t):
    return x * t


def train(x, n):
    for t in range(n):
        x = step(x, t=t)  # JS208
        x = step(x, t=t % 2)
    lr = 1.0
    while lr > 0.01:
        x = step(x, lr)  # JS208
        lr *= 0.5
    for k in (1, 2):
        x = step(x, k)
    return x
