import jax


def train(xs):
    lr = 1.0
    step = jax.jit(lambda x: x * lr)
    out = []
    for x in xs:
        out.append(step(x))
        lr = lr * 0.5  # JS503
    return out


def calibrate(x):
    offset = 1.0

    @jax.jit
    def shift(v):
        return v + offset

    first = shift(x)
    offset = 10.0  # JS503
    return first, shift(x)


# ---- negatives ----

def train_ok(xs):
    lr = 1.0
    step = jax.jit(lambda x, lr: x * lr)
    out = []
    for x in xs:
        out.append(step(x, lr))
        lr = lr * 0.5
    return out


def configure_then_call(x):
    offset = 1.0

    @jax.jit
    def shift(v):
        return v + offset

    offset = 10.0  # rebound before the first call: the first trace sees 10.0
    return shift(x)


def unrelated(xs):
    count = 0
    step = jax.jit(lambda x: x * 2)
    for x in xs:
        step(x)
        count = count + 1
    return count
