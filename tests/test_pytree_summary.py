"""Argument pytrees summarised by structure, from signatures recorded the way watch records them.

Each case builds real pytrees (an equinox Module, registered dataclasses, pytree classes without
keys, namedtuples, dicts of layers) and the ``ArgSignature`` watch's own builder makes of a call
(``collect.watch_signature.call_signature``), then reads the summary.
"""

from __future__ import annotations

import collections
import dataclasses

import jax
import jax.numpy as jnp
import pytest

from jitscope.analyze.pytree_summary import folds_leaves, leaf_list, summarise, summarise_typed
from jitscope.collect.watch_signature import call_signature
from jitscope.model import ArgSignature


def signature(fun, *args, static=(), arrays_only=False, **kwargs) -> ArgSignature:
    return call_signature(fun, tuple(static), (), args, kwargs, arrays_only=arrays_only)


def step(model, x, y, lr=0.1):
    return model


def test_an_equinox_model_is_its_classes_with_equal_layers_counted():
    eqx = pytest.importorskip("equinox")

    class MLP(eqx.Module):
        layers: list

    keys = jax.random.split(jax.random.key(0), 6)
    model = MLP([eqx.nn.Linear(32, 32, key=k) for k in keys])
    sig = signature(step, model, jnp.ones((16, 32)), jnp.ones((16, 32)), 0.1, static=(3,))
    assert summarise(sig) == ("model=MLP(layers=[6 x Linear(weight=f32[32,32], bias=f32[32])]), x=f32[16,32], "
                              "y=f32[16,32], lr=0.1")
    assert folds_leaves(sig) and len(leaf_list(sig)) == 15  # 12 arrays, x, y and lr
    assert leaf_list(sig)[0] == "model.layers[0].weight=f32[32,32]"
    # under equinox.filter_jit every non-array leaf is static: the activation is a static value in the tree
    act = MLP([eqx.nn.Linear(4, 4, key=keys[0]), jax.nn.relu])
    sig = signature(step, act, jnp.ones(4), jnp.ones(4), arrays_only=True)
    assert summarise(sig).startswith("model=MLP(layers=[Linear(weight=f32[4,4], bias=f32[4]), <")


def test_dataclasses_keyless_classes_namedtuples_and_containers():
    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Dense:
        w: jax.Array
        b: jax.Array

    @jax.tree_util.register_pytree_node_class
    class Box:  # flattened without keys: its children are positions
        def __init__(self, *xs):
            self.xs = xs

        def tree_flatten(self):
            return self.xs, None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

    Point = collections.namedtuple("Point", "a b")
    tree = {"dense": Dense(jnp.ones((8, 4)), jnp.ones(4)), "box": Box(jnp.ones(2), jnp.ones(2), jnp.ones(3)),
            "point": Point(1.0, jnp.ones(2, jnp.int32)), "pair": (jnp.ones(1),), "none": None, "list": [2.0]}
    assert summarise(signature(lambda tree: tree, tree)) == (
        "tree={box: Box(2 x f32[2], f32[3]), dense: Dense(w=f32[8,4], b=f32[4]), list: [~f32[]], "
        "pair: (f32[1],), point: Point(a=~f32[], b=i32[2])}")


def test_a_dict_of_equal_layers_names_the_first_and_last():
    params = {f"layer_{i}": {"w": jnp.ones((4, 4)), "b": jnp.ones(4)} for i in range(5)}
    params["head"] = {"w": jnp.ones((4, 1))}
    assert summarise(signature(lambda params: params, params)) == (
        "params={head: {w: f32[4,1]}, layer_0..layer_4: 5 x {b: f32[4], w: f32[4,4]}}")


def test_a_long_summary_folds_its_deeper_levels():
    layers = [{"w": jnp.ones((i + 1, 2)), "b": jnp.ones(i + 1)} for i in range(12)]  # all different
    text = summarise(signature(lambda layers: layers, layers))
    assert len(text) <= 170 and text.startswith("layers=[") and "2 leaves" in text, text
    assert summarise(signature(lambda layers: layers, layers), limit=10_000).count("w: f32[") == 12


def test_without_a_readable_structure_the_paths_still_summarise():
    sig = signature(lambda p: p, {"a": {"w": jnp.ones(2)}, "b": {"w": jnp.ones(2)}})
    bare = ArgSignature(sig.leaves, sig.static, "")
    garbled = ArgSignature(sig.leaves, sig.static, "p: PyTreeDef({'a': CustomNode(X[")
    assert summarise(bare) == summarise(garbled) == "p={a: {w: f32[2]}, b: {w: f32[2]}}"
    assert summarise(None) == "" and leaf_list(None) == [] and not folds_leaves(None)
    # ArgSignature.of: paths of the (args, kwargs) tree, no parameter names
    assert summarise(ArgSignature.of((jnp.ones(3), [jnp.ones(2)] * 3))) == "((f32[3], [3 x f32[2]]),)"


def test_a_jaxprs_inputs_read_like_the_call():
    sig = signature(lambda p, x: x, {"w": jnp.ones((3, 3)), "b": jnp.ones(3)}, jnp.ones(3))
    pairs = [(leaf.path, leaf.short()) for leaf in sig.leaves]
    assert summarise_typed(pairs, sig.treedef) == summarise(sig) == "p={b: f32[3], w: f32[3,3]}, x=f32[3]"
    assert not folds_leaves(signature(lambda x, y: x, jnp.ones(2), jnp.ones(3)))
