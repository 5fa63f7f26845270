import jax
import jax.numpy as jnp
from jax import lax

history = []
cache = {}


@jax.jit
def step(x):
    history.append(x)  # JS403
    return x + 1


@jax.jit
def memo(x):
    cache["last"] = x  # JS403
    return x


@jax.jit
def fill(x, out):
    out.extend([x, x])  # JS403
    return x


@jax.jit
def scan_leak(xs):
    seen = []

    def body(c, x):
        seen.append(x)  # JS403
        return c + x, c

    return lax.scan(body, 0.0, xs)


# ---- negatives ----

@jax.jit
def stack_ok(x):
    parts = []
    for i in range(3):
        parts.append(x * i)
    return jnp.stack(parts)


@jax.jit
def helper_ok(x):
    outs = []

    def add(v):
        outs.append(v * 2)

    add(x)
    return outs[0]


def eager(x):
    history.append(x)
    cache["last"] = x


def make_step(opt):
    @jax.jit
    def step(params, grads, state):
        updates, state = opt.update(grads, state, params)  # optax: returns new values, mutates nothing
        return updates, state

    return step


@jax.jit
def kwargs_ok(x, **kwargs):
    scale = kwargs.pop("scale", 1.0)
    return x * scale


def kernel(x_ref, o_ref):
    def body(i, acc):
        o_ref[i] = x_ref[i] * 2  # Pallas-style Ref write: not a container mutation
        return acc

    lax.fori_loop(0, 8, body, 0)


def make_recorder(cache):
    def record(x):
        cache.update(last=x * 2)  # JS403
        return x + 1

    return jax.jit(record)


def make_tracker(stats):
    def track(x):
        stats.update({"mean": x.mean()})  # JS403
        return x

    return jax.jit(track)


def make_smoother(ema):
    def smooth(x):
        ema.update(x)  # an object of unknown type given an array: could be anything
        return x

    return jax.jit(smooth)


class Metrics:
    def update(self, **values):
        self.names = sorted(values)  # keeps the names only: no tracer outlives the trace


def make_logger(metrics: Metrics):
    def log(x):
        metrics.update(loss=x.sum())  # a typed object's own update(**kw): not dict.update
        return x

    return jax.jit(log)
