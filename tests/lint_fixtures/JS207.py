import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return x * 0.5, jnp.sum(x * x)


residual = jax.jit(lambda x: jnp.max(jnp.abs(x)))


def train(x, n):
    for _ in range(n):
        x, loss = step(x)
        if loss < 1e-3:  # JS207
            break
    return x


def solve(x):
    while residual(x) > 1e-2:  # JS207
        x, _ = step(x)
    return x


def train_logged(x, n):
    for i in range(n):
        x, loss = step(x)
        if float(loss) > 1e6:  # JS207
            raise FloatingPointError("diverged")
    return x


def train_noisy(x, n):
    noisy = []
    for i in range(n):
        x, loss = step(x)
        if loss > 1.0:  # JS207
            noisy.append(i)  # the loop does not wait for this: a warning, not the loop's own design
    return x, noisy


# ---- negatives ----

def train_ok(x, n):
    for i in range(n):
        x, loss = step(x)
        if i % 100 == 0 and i > 0:  # only the step counter: no device value
            print(i)
        if x.shape[0] > 100:  # shapes are static
            break
        if i % 100 == 0 and loss < 1e-3:  # read every 100 steps only
            break
    return x


def check_once(x):
    x, loss = step(x)
    if loss < 1e-3:  # not in a loop: one sync
        return x
    return x * 2
