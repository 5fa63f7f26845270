"""watch turns on ``jax_explain_cache_misses`` for the first traces of each function; JAX's explainer then
rebuilds the old and new argument trees with placeholder leaves to describe a pytree difference, and a pytree
class whose constructor checks its children (many libraries' do) raises there, inside the user's jit call.
Found on a held-out test suite: a test passing under plain pytest failed under watch. The explanation is
optional; the call is not: under watch the program runs as it runs without it (_jaxcompat.hooks
``shield_cache_miss_explainer``), and where the user turned the explanation on, watch changes nothing.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import run_cli

PROGRAM = '''\
import jax
import jax.numpy as jnp
from jax import tree_util


@tree_util.register_pytree_node_class
class Box:
    def __init__(self, *xs):
        for x in xs:
            if not hasattr(x, "shape"):  # checks its children
                raise TypeError("Box holds arrays only")
        self.xs = xs

    def tree_flatten(self):
        return self.xs, None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@jax.jit
def total(b):
    return sum(jnp.sum(x) for x in b.xs)


print(float(total(Box(jnp.ones(2)))))
print(float(total(Box(jnp.ones(2), jnp.ones(3)))))  # a new tree: a tracing-cache miss JAX may explain
'''


def _plain(path, **env):
    import os

    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu", **env})


def test_a_pytree_that_checks_its_children_runs_under_watch_as_without_it(tmp_path):
    path = tmp_path / "box.py"
    path.write_text(PROGRAM)
    plain = _plain(path)
    assert plain.returncode == 0 and plain.stdout.split() == ["2.0", "5.0"], plain.stderr
    explained = _plain(path, JAX_EXPLAIN_CACHE_MISSES="1")  # the explainer itself raises on this class
    assert explained.returncode != 0 and "Box holds arrays only" in explained.stderr
    r = run_cli("watch", "-q", "--json", "run.json", str(path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2.0", "5.0"]
    # where the user turned the explanation on, watch leaves JAX's behaviour alone: the same failure
    r = run_cli("watch", "-q", str(path), cwd=tmp_path, env={"JAX_EXPLAIN_CACHE_MISSES": "1"})
    assert r.returncode != 0 and "Box holds arrays only" in r.stderr
