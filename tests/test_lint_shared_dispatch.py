"""The walk's dispatch tables (lint/visitor.py): which rules a node type or a callee selects depends on the
rule classes alone, so it is worked out once per set of classes for every file, not again per file (the
``calls`` patterns of ~50 rules matched against each callee of each file used to be rebuilt per file).
Counts, not times; what each file reports is unchanged (tests/test_lint_dispatch.py: byte-identical output).
"""

from __future__ import annotations

from jitscope.lint import lint_source, visitor

SRC = '''\
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def f(x, n):
    y = np.asarray(x)
    if x.sum() > 0:
        print(jnp.sum(x))
    return y + n
'''


def test_callee_matches_and_node_types_are_worked_out_once_for_every_file(monkeypatch):
    matched: list[tuple[str | None, str]] = []
    real = visitor._CallTable._match

    def counting(self, q, func):
        matched.append(q)
        return real(self, q, func)

    monkeypatch.setattr(visitor._CallTable, "_match", counting)
    monkeypatch.setattr(visitor, "_SHARED", {}, raising=False)  # what earlier lints in this process shared
    first = [(f.code, f.location.line) for f in lint_source(SRC, "a.py")]
    n = len(matched)
    again = [(f.code, f.location.line) for f in lint_source(SRC, "b.py")]
    assert first == again and first, first
    assert n > 0 and len(matched) == n, matched[n:]  # the second file matched no callee again
