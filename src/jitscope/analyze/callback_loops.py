"""JW503: a host callback inside a compiled loop: one round trip to Python per iteration.

Read from the traced program (the jaxpr watch already has at each trace; nothing runs again): an equation
of a host-callback primitive (``jax.pure_callback``, ``io_callback``, ``jax.debug.callback``,
``jax.debug.print``) anywhere inside the body of a ``scan`` (``lax.scan``, ``lax.fori_loop`` with static
bounds, ``lax.map``) or a ``while`` (``lax.while_loop``, ``fori_loop`` with traced bounds). The compiled loop
stops at each iteration, copies the operands to the host, runs Python and copies the results back: on a
CPU about a hundred microseconds per iteration against a few for the loop body itself (issue #24 measured
~600x on one program). The finding names the callback's line, the loop's line and, for a ``scan``, the
iterations per call (a ``while`` loop's count is known only at run time).

Certain (the equation is in the compiled program), ``warning``: whether the round trips matter depends on the
loop's length and how often the program runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._jaxcompat import StackCache, jaxprs_in_params
from ..jaxmodel import fixes
from ..model import Fix, Location
from .runtime_findings import RuntimeFinding, _source

CALLBACKS = {"pure_callback": "jax.pure_callback", "io_callback": "io_callback",
             "debug_callback": "jax.debug.callback", "debug_print": "jax.debug.print"}
LOOPS = {"scan": "lax.scan", "while": "lax.while_loop"}


@dataclass
class CallbackInLoop:
    """One host callback equation inside a loop body (the innermost loop)."""

    callback: str  # the primitive's user-facing name
    location: Location | None
    loop: str
    loop_location: Location | None
    iterations: int | None  # per execution of the loop (scan's length); None for a while loop


def callbacks_in_loops(closed_jaxpr: Any, fn: Any = None) -> list[CallbackInLoop]:
    """Each (callback line, loop) pair of a traced program, innermost loop first."""
    stacks = StackCache(getattr(fn, "__code__", None))

    def where(eqn: Any) -> Location | None:
        stack = stacks.stack(eqn)
        return Location(stack[-1][0], stack[-1][2], function=stack[-1][1]) if stack else None

    out: dict[tuple, CallbackInLoop] = {}
    todo: list[tuple[Any, Any]] = [(getattr(closed_jaxpr, "jaxpr", closed_jaxpr), None)]
    seen: set[tuple[int, int]] = set()
    while todo:
        jx, loop = todo.pop()
        if (id(jx), id(loop)) in seen:
            continue
        seen.add((id(jx), id(loop)))
        for eqn in jx.eqns:
            name = eqn.primitive.name
            if name in CALLBACKS:
                if loop is not None:
                    cb = where(eqn)
                    key = (name, cb.file if cb else "", cb.line if cb else 0, id(loop))
                    if key not in out:
                        length = loop.params.get("length") if loop.primitive.name == "scan" else None
                        out[key] = CallbackInLoop(CALLBACKS[name], cb, LOOPS[loop.primitive.name], where(loop),
                                                  int(length) if isinstance(length, int) else None)
                continue
            inner = eqn if name in LOOPS else loop
            for sub in jaxprs_in_params(eqn.params):
                todo.append((getattr(sub, "jaxpr", sub), inner))
    return list(out.values())


def callback_loop_findings(event: Any, closed_jaxpr: Any, fn: Any, base: dict[str, Any]) -> list[RuntimeFinding]:
    """JW503 for each host callback inside a loop of one traced program."""
    if closed_jaxpr is None:
        return []
    out = []
    for c in callbacks_in_loops(closed_jaxpr, fn):
        loop_at = f" at line {c.loop_location.line}" if c.loop_location else ""
        per = f"{c.iterations:,} host round trips per call" if c.iterations else "one host round trip per iteration"
        loc = c.location or c.loop_location or event.definition
        out.append(RuntimeFinding(
            "JW503", event.function,
            f"{c.callback}{f' at line {c.location.line}' if c.location else ''} runs inside the {c.loop}{loop_at} "
            f"of {event.function}'s program: {per}", "warning", loc,
            Fix(fixes.CALLBACK_IN_LOOP.title, fixes.CALLBACK_IN_LOOP.why, location=loc), source=_source(loc),
            details={"callback": c.callback, "loop": c.loop, "iterations": c.iterations,
                     "loop_line": c.loop_location.line if c.loop_location else None,
                     "evidence": f"a {c.callback} equation inside the body of a {c.loop} of the traced program"},
            **base))
    return out
