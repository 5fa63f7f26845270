import jax
import jax.numpy as jnp

TRACES = []


def train_step(params, batch):
    @jax.jit  # JS205
    def loss(p):
        TRACES.append("loss")
        return jnp.mean((batch * p) ** 2)

    return loss(params)


def train(params, data):
    return [train_step(params, batch) for batch in data]


def sweep(xs):
    out = []
    for x in xs:
        @jax.jit  # JS205
        def double(v):
            TRACES.append("double")
            return v * 2

        out.append(double(x))
    return out


# ---- negatives ----

@jax.jit
def loss_ok(p, batch):
    TRACES.append("loss_ok")
    return jnp.mean((batch * p) ** 2)


def train_step_ok(params, batch):
    return loss_ok(params, batch)


def train_ok(params, data):
    return [train_step_ok(params, batch) for batch in data]


def make_step(scale):
    @jax.jit
    def step(v):
        TRACES.append("step")
        return v * scale

    return step  # a factory: the caller keeps the jitted function


def run_once(x):
    @jax.jit
    def inner(v):
        return v + 1

    return inner(x)  # run_once is never called in a loop here


def test_retraces_on_purpose():
    def outer(x):
        @jax.jit
        def inner(v):
            return v + 1

        return inner(x)

    return [outer(x) for x in range(3)]  # a test showing retracing: its business
