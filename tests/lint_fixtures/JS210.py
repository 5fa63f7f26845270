import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class EnvState:
    pos: jax.Array
    time: int
    score: float


def reset(key):
    return EnvState(pos=jnp.zeros(2), time=0, score=0.0)  # JS210


def step(state, action):
    return EnvState(pos=state.pos + action, time=jnp.int32(state.time + 1), score=state.score + 1.0)


class Plain:
    def __init__(self, time):
        self.time = time


def plain():
    return Plain(time=0), Plain(time=jnp.int32(1))


class TypedEnv:
    def reset(self):
        return EnvState(pos=jnp.zeros(2), time=jnp.int32(0), score=jnp.float32(0))


class WeakEnv:
    def reset(self):  # another environment's states: they need not meet TypedEnv's jitted step
        return EnvState(pos=jnp.zeros(2), time=0, score=0.0)

    def step(self, state, action):
        return EnvState(pos=state.pos + action, time=state.time + 1, score=state.score + 1.0)
