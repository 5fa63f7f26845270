"""JS208 and static arguments that take a few values: an item of a collection the loop never rebinds
(`task = TASKS[i % len(TASKS)]`, `random.choice(TASKS)`) and the class of an object (`kind = type(x)`) take at most
as many values as the collection holds, or one per class: jit compiles once per value and then hits its cache
(counted below under real jit: 3 compiles for 9 iterations over 3 tasks, 1 for the class). A value the loop carries
(`scale = scale * 0.5`) compiles on every iteration and stays reported."""

from __future__ import annotations

from conftest import count_compiles

from jitscope.lint import lint_source

SRC = '''
import functools
import random

import jax
import jax.numpy as jnp

TASKS = ("add", "mul", "sub")


@functools.partial(jax.jit, static_argnames=("task",))
def apply(x, task):
    return x + 1 if task == "add" else x * 2 if task == "mul" else x - 1


@functools.partial(jax.jit, static_argnames=("kind",))
def tag(x, kind):
    return x * len(kind.__name__)


@functools.partial(jax.jit, static_argnames=("scale",))
def scaled(x, scale):
    return x * scale


def cycle(x, n):
    for i in range(n):
        task = TASKS[i % len(TASKS)]
        x = apply(x, task=task)
    return x


def sample(x, n):
    for _ in range(n):
        task = random.choice(TASKS)
        x = apply(x, task=task)
    return x


def by_class(x, n):
    for _ in range(n):
        kind = type(x)
        x = tag(x, kind=kind)
    return x


def anneal(x, n):
    scale = 1.0
    for _ in range(n):
        scale = scale * 0.5
        x = scaled(x, scale=scale)  # JS208
    return x
'''


def test_few_values_are_not_reported():
    found = sorted(f.location.line for f in lint_source(SRC, "m.py", select=["JS208"]) if f.severity == "warning")
    call = [i for i, line in enumerate(SRC.splitlines(), 1) if "# JS208" in line]
    decl = [i for i, line in enumerate(SRC.splitlines(), 1) if '"scale",' in line]
    assert found == sorted(call + decl), found


def test_compiles_under_real_jax():
    import jax.numpy as jnp

    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    x = jnp.ones(2)
    assert count_compiles(lambda: ns["cycle"](x, 9)) == 3
    assert count_compiles(lambda: ns["sample"](x, 9)) == 0  # the three tasks are cached already
    assert count_compiles(lambda: ns["by_class"](x, 5)) == 1
    assert count_compiles(lambda: ns["anneal"](x, 4)) == 4
