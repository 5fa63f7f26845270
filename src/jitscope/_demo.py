"""``jitscope.demo``: run the articles' case studies (``jitscope.gallery``) live and collect their results.

Each case study measures with the compare engine (or its own scaling loop) and computes a
one-line lesson from its numbers. A case that raises is recorded with its error and the
others still run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from .collect._errors import error_line
from .errors import UsageError
from .gallery import CASES, case_module
from .model import Environment
from .results.demo import CaseStudy, DemoResult


def parse_only(text: str | Sequence[str] | None) -> list[str]:
    """Case names from ``--only a,b`` (or a list); raises UsageError naming an unknown one."""
    if text is None:
        return list(CASES)
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [s.strip() for s in items if s.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise UsageError(f"unknown case study '{unknown[0]}' (known: {', '.join(CASES)})")
    if not names:
        raise UsageError(f"--only needs at least one case study (known: {', '.join(CASES)})")
    return [n for n in CASES if n in names]


def demo(only: str | Sequence[str] | None = None, *, quick: bool = False,
         on_case: Callable[[str, str], None] | None = None) -> DemoResult:
    """Run the case studies and return a ``DemoResult``.

    Example:
        >>> r = demo(only="selu", quick=True)
        >>> r.case("selu").lesson  # e.g. 'jit(selu) wins: jit(selu) runs 4.1x faster than eager ...'
        '...'

    Args:
        only: case study names (``"selu,jit_scope"`` or a list); None runs all of ``gallery.CASES``.
        quick: smaller inputs and sampling budgets (the whole demo in well under 30 s on a CPU; on a GPU,
            where first calls and eager dispatches cost more, much longer).
        on_case: called as ``on_case(name, title)`` before each case study (for progress bars).

    Returns:
        A ``DemoResult`` with one ``CaseStudy`` per case, in demo order.
    """
    import jax

    names = parse_only(only)
    result = DemoResult(quick=quick, env=Environment.capture())
    t0 = time.perf_counter()
    for name in names:
        module = case_module(name)
        if on_case is not None:
            on_case(name, module.TITLE)
        start = time.perf_counter()
        try:
            case = module.run(quick=quick)
        except KeyboardInterrupt:
            result.interrupted = True  # keep the finished cases; the caller still saves and shows them
            break
        except Exception as e:  # one failed case must not lose the others
            case = CaseStudy(name, module.TITLE, module.SEED, module.PUBLISHED, error=error_line(e),
                             seconds=time.perf_counter() - start)
        result.cases.append(case)
        jax.clear_caches()  # leave no compiled state that could flatter the next case
    result.seconds = time.perf_counter() - t0
    return result
