"""The seeds' case studies, used by ``jitscope demo`` and ``benchmarks/seed_tables.py``.

One module per case study. Each exposes the functions it measures (importable by tests and
benchmarks), ``NAME``, ``TITLE``, ``SEED`` (the seed document), ``PUBLISHED`` (the seed's figures)
and ``run(quick=False) -> CaseStudy``, whose lesson is computed from that run's numbers.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Demo order; each name is a module in this package.
CASES = ("selu", "random_walk", "jit_scope", "lambda_cache", "float_simplify", "builtin_sum", "fusion")


def case_module(name: str) -> ModuleType:
    """The gallery module of case study ``name`` (one of ``CASES``)."""
    if name not in CASES:
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{name}")
