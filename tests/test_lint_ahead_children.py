"""lint/_astchildren.py: the child functions of astutil's walks compiled ahead (issue #25 item 5).

A one-file lint used to compile ~30 of them (one per node type met, ~3 ms of a small file's ~55); they are now
loaded with a module's bytecode. The functions are astutil's own generated source (checked here, byte for byte)
and give ast's own children (tests/test_lint_dispatch.py, on real code)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from jitscope.lint import _astchildren, astutil


def test_the_ahead_module_is_astutils_generated_source():
    # Every function in the module is exactly `astutil._source` of its field tuple: nothing hand-edited, and a
    # change to the generator shows here. JITSCOPE_UPDATE_SNAPSHOTS=1 rewrites it (adding this Python's types).
    if os.environ.get("JITSCOPE_UPDATE_SNAPSHOTS"):
        astutil.write_ahead()
        pytest.skip("rewrote lint/_astchildren.py")
    with open(astutil.AHEAD_PATH, encoding="utf-8") as fh:
        text = fh.read()
    assert text == astutil.ahead_source(set(_astchildren.FUNCTIONS), set(_astchildren.PYTHONS))


def test_every_node_type_of_this_python_is_compiled_ahead():
    if sys.version_info[:2] not in _astchildren.PYTHONS:
        pytest.skip(f"Python {sys.version_info[:2]} is not in lint/_astchildren.py's PYTHONS: compiled when met")
    assert astutil.node_field_sets() <= set(_astchildren.FUNCTIONS)


_RICH = '''
import jax, jax.numpy as jnp
from functools import partial

@partial(jax.jit, static_argnames=("n",))
def step(x, n, *args, k=1, **kw):
    global G
    ys = [y * 2 for y in x if y > 0]
    d = {a: b for a, b in kw.items()}
    s = {*args}
    with open("f") as fh, open("g"):
        pass
    try:
        z = x[1:2, ::k] @ x
    except (TypeError, ValueError) as e:
        raise RuntimeError(f"{e!r:>10}") from e
    finally:
        del ys
    while n:
        n -= 1
        if not n or n is None:
            break
        continue
    match n:
        case [1, *rest] | {"a": 2}:
            pass
        case Point(x=0) if n > 0:
            pass
        case _:
            pass
    assert x is not None, "x"
    lam = lambda q, /, r=2: q if r else -q
    async def inner():
        async for i in aiter():
            await i
        async with ctx():
            yield i
    return jnp.sum(x), (yield from range(3)), [*x], {**d}, not x, ~n, x if n else z, (G := 1)
'''

_COUNT = '''
import builtins, sys
import jitscope.lint.engine
from jitscope import lint_source
calls = []
real = builtins.exec
def counting(*a, **k):
    calls.append(sys._getframe(1).f_globals.get("__name__"))
    return real(*a, **k)
builtins.exec = counting
lint_source(sys.stdin.read(), "rich.py")
builtins.exec = real
print(calls.count("jitscope.lint.astutil"))
'''


def test_a_lint_compiles_no_child_function():
    # In a fresh process (the tables empty), a lint of a file with most node types compiles none of them.
    ast.parse(_RICH)  # the file parses: the lint walks it
    compiled = subprocess.run([sys.executable, "-c", _COUNT], input=_RICH, capture_output=True, text=True,
                              check=True).stdout
    assert compiled.strip() == "0"


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type X = ...` (PEP 695) parses from Python 3.12")
def test_a_type_alias_name_is_a_child_node():
    # TypeAlias.name is a Name node (elsewhere `name` is a string): ast.iter_child_nodes gives it, and so must
    # astutil.iter_child_nodes (it was skipped as an identifier field)
    tree = ast.parse("type A[T] = list[T]\ndef f[T: int, *Ts, **P](x: T) -> T: return x\nclass C[T]: pass\n")
    for node in ast.walk(tree):
        assert astutil.iter_child_nodes(node) == list(ast.iter_child_nodes(node)), ast.dump(node)[:80]
    assert [type(n).__name__ for n in astutil.ast_walk(tree)] == [type(n).__name__ for n in ast.walk(tree)]
