"""What one user action can merge: the scope within which two compiles are paired as advice.

A duplicate compile (JW403/JW404) or a fix ("create the jitted function once", "pass one type")
is advice only when one change in the user's code would make the two compiles one:

* Under pytest (``CompileEvent.test``, the node id, parametrization included), only compiles of one
  test are paired. Two tests, or two parametrizations of one test, each build their own jitted
  objects and arguments on purpose; JAX's caches outliving a test is no mistake of the test.
* Elsewhere, compiles of one jitted *object* pair across the run (the weak type at line 10 and the
  array at line 20 are one object's two cache entries: one call site changes). Two jitted *objects*
  of one function with the same program pair only at one call site: a ``jax.jit(...)`` or a closure
  rebuilt in a loop or per call, where "create it once" is one change; objects called from different
  lines are the user's separate decisions. Programs that differ only in constants (JW404) pair across
  call sites: the fix (the value as an argument) is one change in the definition.
* Two jit objects with different options (``donate_argnums``, ``static_argnums``, shardings,
  ``keep_unused``, ``inline``, device or backend: ``CompileEvent.jit_options``) are different
  functions, never "the same function rebuilt".
* A compile whose definition and call site are both in an installed package (a library's own
  ``init``/``apply`` pair) is the library's: no advice to the user, except a jit per object (the library jits a
  bound method per object and the user makes a new object per call: reusing it is the user's change).
* A function defined in an installed package (diffrax's ``diffeqsolve``) called by the user: fixes of
  the call are the user's (one type, one container, one placement), fixes of the definition are not
  (which arguments are static is the library's choice): a static value it ignores is no advice.
* Cost advice about a test's own lines (under pytest): a per-step cost (``TEST_SPEED_CODES``: host reads per
  iteration, shape churn, dispatch, host copies and callbacks per call) whose site is a line of a test module of
  the run (``model.is_test_code_file``) and that cost the run under ``TEST_COST_SECONDS`` is about how fast the
  test runs, which nobody acts on: not reported (``test_speed_only``). The same cost at a line of the program or
  a library, or a test line that lost more, stays.
* Who chose the variation (under pytest): the arguments of a jitted call are chosen by the frame that passes
  them, the innermost frame of the program's or a library's code that called it (``library_site`` where a
  library called on the program's behalf, else ``call_site``). Where that frame is the running test's own code
  (``in_test_code``: the module pytest collected the test from, or a ``conftest.py``), a
  variation between two calls (another container class, a static value, another function in a static field,
  one argument left out, an eager ``lax.cond`` the test runs outside jit) is what the test exercises on
  purpose, not a defect to fix. A variation a library's frame passes stays advice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model import CompileEvent, Location, installed_package_file, is_test_code_file

# Findings about what a step costs (not what it computes): at a test's own line, under TEST_COST_SECONDS, they are
# about the test's speed. JW507 (a timing that ends before the work) is about a measurement's truth: not here.
TEST_SPEED_CODES = frozenset({"JW405", "JW501", "JW502", "JW503", "JW504", "JW505", "JW506", "JW508"})
TEST_COST_SECONDS = 1.0


def jit_options(event: CompileEvent) -> str:
    """The options of the jit object that compiled, as one comparable text ("" for the defaults).

    The one reader of the recorded options here and in ``fix_savings``: where another record of them
    is kept (``ArgSignature.options``), this is the line to change."""
    return event.jit_options or ""


def scope_key(event: CompileEvent) -> tuple:
    """Compiles with different keys are never paired: the test, the jit options, the transformation."""
    return (event.test, jit_options(event), event.transform)


def library_internal(event: CompileEvent) -> bool:
    """Defined and called inside installed packages: the library's compile, not the user's to fix. The jit
    call's innermost frame is ``library_site`` when a library jitted on the program's behalf (``call_site`` is
    then the program's own line), else ``call_site``."""
    d, c = event.definition, event.library_site or event.call_site
    return d is not None and c is not None and installed_package_file(d.file) and installed_package_file(c.file)


def library_defined(event: CompileEvent) -> bool:
    """The jitted function is defined in an installed package: its static arguments are the library's choice."""
    return event.definition is not None and installed_package_file(event.definition.file)


def same_call_site(a: CompileEvent, b: CompileEvent) -> bool:
    return a.call_site is not None and b.call_site is not None and \
        (a.call_site.file, a.call_site.line) == (b.call_site.file, b.call_site.line)


def mergeable(old: CompileEvent, new: CompileEvent) -> bool:
    """One user action could merge the two compiles (same scope assumed): one jitted object, or two
    objects of one function at one call site."""
    if old.function_id is None or new.function_id is None or old.function_id == new.function_id:
        return True
    return same_call_site(old, new)


def in_test_code(event: CompileEvent, loc: Location | None) -> bool:
    """``loc`` is a line of the running test's own code (``model.is_test_code_file`` of the event's node id)."""
    return loc is not None and is_test_code_file(event.test, loc.file)


def chosen_by_test(event: CompileEvent) -> bool:
    """The call's arguments were passed by the running test's own code (the frame that called the jitted function)."""
    return in_test_code(event, event.library_site or event.call_site)


def _cost(finding: Any) -> float:
    """The seconds a finding says its cost took in this run (0 when it names none)."""
    details = getattr(finding, "details", None) or {}
    values = [getattr(finding, "seconds", 0.0), details.get("seconds"), details.get("wasted_seconds")]
    return max((float(v) for v in values if isinstance(v, (int, float))), default=0.0)


def test_speed_only(finding: Any, tests: Iterable[str]) -> bool:
    """A per-step cost finding (``TEST_SPEED_CODES``) at a line of a test module of the run (``tests``: the node ids
    the run's compiles were stamped with) that cost under ``TEST_COST_SECONDS``: the test's speed, not advice."""
    loc = getattr(finding, "location", None)
    if finding.code not in TEST_SPEED_CODES or loc is None or _cost(finding) >= TEST_COST_SECONDS:
        return False
    return any(is_test_code_file(t, loc.file) for t in tests)
