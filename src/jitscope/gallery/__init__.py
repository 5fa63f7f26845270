"""The articles' case studies, used by ``jitscope demo`` and ``benchmarks/seed_tables.py``.

One module per case study. Each exposes the functions it measures (importable by tests and
benchmarks), ``NAME``, ``TITLE``, ``SEED`` (the article it comes from, named by its subject: one of
``ARTICLES``), ``PUBLISHED`` (the article's figures) and ``run(quick=False) -> CaseStudy``, whose
lesson is computed from that run's numbers.

Users see the articles by subject only: the seed files' names (``003_5bc047ac44cc4edb.txt``, kept in
the comments below for maintainers) mean nothing to anyone without the project's shared folder.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# The five articles the case studies come from, by subject (what the demo prints and the JSON keeps).
ARTICLES = (
    "the article on which scope to jit (whole program, inner function, both)",  # 000_58cf8412eecf9ed2.txt
    "the article on JIT mechanics (SELU, Gaussian random walk, lax.scan)",  # 001_d24eb31337567946.txt
    "the pitfalls article (fresh lambdas, stale globals, x + y - x)",  # 002_9a6cbb8ce9aec62c.txt
    "the compile-time article (unrolled loops and builtin sum)",  # 003_5bc047ac44cc4edb.txt
    "the static-shapes article (op fusion, boolean masks)",  # 004_ca514a07a25e66bc.txt
)

# Demo order; each name is a module in this package.
CASES = ("selu", "random_walk", "jit_scope", "lambda_cache", "float_simplify", "builtin_sum", "fusion")


def case_module(name: str) -> ModuleType:
    """The gallery module of case study ``name`` (one of ``CASES``)."""
    if name not in CASES:
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{name}")
