import jax

counter = 0
last = None


@jax.jit
def step(x):
    global counter
    counter += 1  # JS402
    return x * 2


@jax.jit
def remember(x):
    global last
    last = x  # JS402
    return x


def outer(xs):
    total = 0

    @jax.jit
    def inner(x):
        nonlocal total
        total = total + x.sum()  # JS402
        return x

    return inner(xs), total


# ---- negatives ----

def bump():
    global counter
    counter += 1


@jax.jit
def step_ok(x, counter):
    return x * 2, counter + 1


@jax.jit
def local_ok(x):
    counter = 1
    counter += 1
    return x * counter
