from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp


@dataclass
class Config:
    depth: int


class Mode:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Mode) and other.name == self.name


class Plain:
    scale = 2.0


@partial(jax.jit, static_argnames="cfg")
def run(x, cfg):
    return x * cfg.depth


@partial(jax.jit, static_argnums=1)
def apply(x, mode):
    return x + 1 if mode.name == "inc" else x


@partial(jax.jit, static_argnums=(1,))
def scaled(x, p):
    return x * p.scale


def main(x):
    return run(x, cfg=Config(3))  # JS604


def main_mode(x):
    mode = Mode("inc")
    return apply(x, mode)  # JS604


def loop(xs):
    return [scaled(x, Plain()) for x in xs]  # JS604


# ---- negatives ----

@dataclass(frozen=True)
class FrozenConfig:
    depth: int


class Named:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Named) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


PLAIN = Plain()


def main_ok(x):
    return run(x, cfg=FrozenConfig(3)), apply(x, Named("inc"))


def loop_ok(xs):
    return [scaled(x, PLAIN) for x in xs]  # one instance: the cache hits



@dataclass(eq=False)
class Tag:
    scale: float = 2.0


def loop_tags(xs):
    return [scaled(x, Tag()) for x in xs]  # JS604


@dataclass(frozen=True)
class Axes:
    dims: list


AXES = Axes(dims=[0, 1])


def main_axes(x):
    return run(x, cfg=AXES), run(x, cfg=Axes((0, 1)))  # JS604
