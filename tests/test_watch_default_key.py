"""JW601 under pytest: a key that is a helper's default argument, drawn from again when the test calls it twice.

Held-out class (issue #24, suites6 re-score, classes only; 8 unsure): test inputs drawn from a library helper's
DEFAULT key (`def make_inputs(n, key=jax.random.key(0))`, called twice by a test). Who chose it: the test called
the helper without a key, so both calls build the same inputs by the test's choice: not a reuse to fix. The same
default key reused within one call of the helper, and a key the test itself passes twice, stay reported.
"""

from __future__ import annotations

from conftest import watch_pytest

DATA = '''
import jax


def make_inputs(n, key=jax.random.key(0)):
    return jax.random.normal(key, (n,))


def make_pair(n, key=jax.random.key(1)):
    a = jax.random.normal(key, (n,))
    b = jax.random.normal(key, (n,))        # the helper's own reuse, within one call
    return a, b


class Sampler:
    def draw(self, n, key=jax.random.key(2)):
        return jax.random.uniform(key, (n,))
'''

SUITE = '''
import jax

import data


def test_inputs_built_twice():
    x = data.make_inputs(3)
    y = data.make_inputs(3)                  # the same inputs: the default key, by the test's choice
    assert (x == y).all()


def test_method_default_twice():
    s = data.Sampler()
    a = s.draw(2)
    b = s.draw(2)                            # a method's default key, through another line of the test
    assert (a == b).all()


def test_pair():
    a, b = data.make_pair(3)
    assert (a == b).all()


def test_passes_one_key_twice():
    key = jax.random.key(5)
    x = data.make_inputs(3, key)
    y = data.make_inputs(3, key)             # the test passed one key twice: reported at its lines
    assert (x == y).all()
'''


def test_a_helpers_default_key_reused_across_calls_is_the_tests_choice(tmp_path):
    data = watch_pytest(tmp_path, {"data.py": DATA, "test_inputs.py": SUITE}, "test_inputs.py")
    found = sorted((f["location"]["file"].rsplit("/", 1)[-1], f["location"]["line"])
                   for f in data["findings"] if f["code"] == "JW601")
    assert found == [("data.py", 11), ("test_inputs.py", 28)], found
