# Deliberate trace-time effects: prints of static values behind a flag, shape probes, trace counters.
import jax
import jax.numpy as jnp

n_traces = 0
shapes_seen = []


@jax.jit
def step(x):
    print("x =", x)  # JS401
    return x + 1


def make_step(verbose=False):
    @jax.jit
    def step_verbose(x):
        if verbose:
            print("compiling for shape", x.shape)  # a static shape, behind a static flag
        return x * 2
    return step_verbose


@jax.jit
def announced(x):
    print("tracing announced for", x.shape)  # JS401
    return x - 1


def init_state(x):
    print("init sees", x)  # traced only by jax.eval_shape: learning shapes is the point
    shapes_seen.append(x.shape)
    return {"w": jnp.zeros_like(x)}


def state_shapes(x):
    return jax.eval_shape(init_state, x)


@jax.jit
def count_traces(x):
    global n_traces
    n_traces += 1  # a trace counter, named for what it counts
    return x
