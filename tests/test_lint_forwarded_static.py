"""JS602 through a helper that jits a function with the static positions its caller names and calls it on its
own ``*args`` (a test helper: ``check_jit(fn, *args, static_argnums=())``).

jit hashes its static arguments at the call, before anything traces: a PRNG key (an array) at a static
position raises ValueError "Non-hashable static arguments are not supported", whichever wrapper put it
there. The helper's summary (lint/wrappers.py, ``Summary.forwards``) records that its ``*args`` reach the
jit at the caller's ``static_argnums``, in its own module or another linted one; the test runs the
flagged call under real jax.jit. Quiet: the key at a traced position, a Python int at the static one,
positions computed at run time (unknown), and a helper that rebinds its ``*args`` first.
"""

from __future__ import annotations

import jax
import pytest

import jitscope

HELPERS = '''\
import jax


def check_jit(fn, *args, static_argnums=()):
    jitted = jax.jit(fn, static_argnums=static_argnums)
    return jitted(*args)


def check_inline(fn, static_argnums, *args):
    return jax.jit(fn, static_argnums=static_argnums)(*args)


def check_moved(fn, *args, static_argnums=()):
    args = args[1:]
    return jax.jit(fn, static_argnums=static_argnums)(*args)
'''

TESTS = '''\
import jax

from .helpers import check_inline, check_jit, check_moved


def sample(key, n):
    return jax.random.normal(key, (n,))


def test_sample(which):
    key = jax.random.PRNGKey(0)
    check_jit(sample, key, 3, static_argnums=(1,))
    check_jit(sample, key, 3, static_argnums=(0,))
    check_inline(sample, 0, key, 3)
    check_jit(sample, key, 3, static_argnums=which)
    check_moved(sample, None, key, 3, static_argnums=(0,))
'''


def test_js602_sees_a_key_forwarded_to_a_static_position(tmp_path):
    pkg = tmp_path / "tests"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPERS)
    (pkg / "test_sample.py").write_text(TESTS)
    result = jitscope.lint([str(tmp_path)], config=False, jobs=1, select=["JS602"])
    got = [(f.location.line, f.location.column, f.severity) for f in result.findings]
    assert got == [(13, 23, "error"), (14, 29, "error")], got
    assert "`check_jit` jits its function with `static_argnums=static_argnums` and calls it on its `*args`" \
        in result.findings[0].message


def test_a_key_at_a_forwarded_static_position_raises_at_the_call():
    ns: dict = {}
    exec(compile(HELPERS, "helpers.py", "exec"), ns)

    def sample(key, n):
        return jax.random.normal(key, (n,))

    key = jax.random.PRNGKey(0)
    assert ns["check_jit"](sample, key, 3, static_argnums=(1,)).shape == (3,)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        ns["check_jit"](sample, key, 3, static_argnums=(0,))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        ns["check_inline"](sample, 0, key, 3)
