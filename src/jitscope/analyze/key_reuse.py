"""PRNG key pitfalls as runtime findings: JW601 (one key consumed twice) and JW602 (a key baked into a
traced program).

The records come from ``collect/key_use.KeyUseProbe``, which applies JAX's own key-reuse semantics (the
sinks and sources of ``jax.experimental.key_reuse``: sampling and ``split`` consume a key, ``fold_in`` and
``key_data`` do not) to the program's direct calls of ``jax.random`` functions:

* JW601 ``prng-key-reuse``: the same key object consumed a second time (eagerly, or twice inside one
  trace). Both draws see the same bits: what ``jax_debug_key_reuse`` reports as ``KeyReuseError``.
* JW602 ``baked-prng-key``: a concrete key consumed while JAX staged a trace: the key came from a global, a
  closure or a static value, and is a constant of the compiled program, so every call (every iteration of a
  ``lax`` loop) draws the same numbers.

Both are ``warning``: the reuse is certain, but an identical draw can be intended (a test comparing two
runs); the finding says which lines drew from the key.
"""

from __future__ import annotations

from typing import Any

from ..jaxmodel import fixes
from ..model import Fix
from .runtime_findings import RuntimeFinding, _source


def key_findings(reuses: list[Any], baked: list[Any]) -> list[RuntimeFinding]:
    """JW601 for each (first use, reuse) pair of lines, JW602 for each line that consumed a baked key."""
    out = []
    for r in reuses:
        loc, first = r.second, r.first
        fn = loc.function or "?"
        same = first.file == loc.file and first.line == loc.line
        earlier = "the same line" if same else f"line {first.line} ({r.first_api})"
        inside = " inside one trace" if r.traced else ""
        times = "" if r.count == 1 else f" ({r.count} times)"
        out.append(RuntimeFinding(
            "JW601", fn,
            f"jax.random.{r.second_api} at line {loc.line} consumed a key already consumed at {earlier}{inside}: "
            f"both draws use the same random bits{times}", "warning", loc,
            Fix(fixes.SPLIT_KEYS.title, fixes.SPLIT_KEYS.why, location=loc), source=_source(loc),
            details={"first": first.to_dict(), "first_api": r.first_api, "api": r.second_api, "traced": r.traced,
                     "count": r.count, "evidence": "the same key object reached two consuming jax.random calls "
                     "made by the program (JAX's key-reuse rules: sampling and split consume, fold_in does not)"}))
    for b in baked:
        loc = b.location
        out.append(RuntimeFinding(
            "JW602", loc.function or "?",
            f"jax.random.{b.api} at line {loc.line} draws from a key that is a constant of the traced program (read "
            "from a global, a closure or a static value): every call draws the same numbers", "warning", loc,
            Fix(fixes.KEY_AS_ARGUMENT.title, fixes.KEY_AS_ARGUMENT.why, location=loc), source=_source(loc),
            details={"api": b.api, "count": b.count,
                     "evidence": "a concrete key (not a tracer) was consumed while JAX staged a trace"}))
    return out


# --- JW602 from the traced program: random bits drawn from a key no input reaches -------------------------
_DRAWS = ("random_bits",)
_ALIGNED = ("pjit", "jit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call", "checkpoint",
            "remat", "custom_lin")


def constant_key_draws(closed_jaxpr: Any) -> list[Any]:
    """The equations of a traced program (the outermost one, for a draw inside a nested call: JAX caches the
    bodies of its own jitted routines, so their source lines may be another call's) that draw
    ``random_bits`` from a key that depends on no argument of the function:
    the key is a constant (captured, or seeded from a Python value at trace time), so every call draws the
    same bits. Dataflow from the arguments through the equations, into nested calls whose operands map one
    to one onto their body's inputs; any other body (loops, conditionals) gets its operands' dependence for
    its constants and 'depends' for the rest, so a key carried through a loop is never reported, and a key
    that is constant inside it is."""
    from .._jaxcompat import jaxprs_in_params

    found: list[Any] = []

    def visit(jx: Any, dep_in: list[bool], top: Any = None) -> list[bool]:
        dep: dict[Any, bool] = dict(zip(jx.invars, dep_in, strict=False))

        def d(v: Any) -> bool:
            return dep.get(v, False) if not hasattr(v, "val") else False  # a Literal is constant

        for eqn in jx.eqns:
            ins = [d(v) for v in eqn.invars]
            name = eqn.primitive.name
            if name in _DRAWS and ins and not ins[0]:
                found.append(top if top is not None else eqn)
            subs = [getattr(s, "jaxpr", s) for s in jaxprs_in_params(eqn.params)]
            if len(subs) == 1 and (name in _ALIGNED or len(subs[0].invars) == len(ins)) \
                    and len(subs[0].invars) == len(ins):
                outs = visit(subs[0], ins, top if top is not None else eqn)
                if len(outs) != len(eqn.outvars):
                    outs = [any(ins)] * len(eqn.outvars)
            else:
                for s in subs:
                    visit(s, [True] * len(s.invars), top if top is not None else eqn)
                outs = [any(ins)] * len(eqn.outvars)
            for v, o in zip(eqn.outvars, outs, strict=False):
                dep[v] = o
        return [d(v) for v in jx.outvars]

    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    visit(jaxpr, [True] * len(jaxpr.invars))
    return found


def constant_key_findings(event: Any, closed_jaxpr: Any, fn: Any, base: dict[str, Any]) -> list[RuntimeFinding]:
    """JW602 for each line of a traced program that draws random bits from a key no argument reaches."""
    from .._jaxcompat import StackCache
    from ..model import Location

    if closed_jaxpr is None or not _mentions_random(closed_jaxpr):
        return []
    stacks = StackCache(getattr(fn, "__code__", None))
    out: dict[tuple[str, int], RuntimeFinding] = {}
    for eqn in constant_key_draws(closed_jaxpr):
        stack = stacks.stack(eqn)
        loc = Location(stack[-1][0], stack[-1][2], function=stack[-1][1]) if stack else event.definition
        key = (loc.file, loc.line) if loc else ("", 0)
        if key in out:
            continue
        out[key] = RuntimeFinding(
            "JW602", event.function,
            f"{event.function} draws random numbers{f' at line {loc.line}' if loc else ''} from a key that no "
            "argument reaches (captured, or seeded from a Python value at trace time): the key is a constant of "
            "the compiled program, and every call draws the same numbers", "warning", loc,
            Fix(fixes.KEY_AS_ARGUMENT.title, fixes.KEY_AS_ARGUMENT.why, location=loc), source=_source(loc),
            details={"api": "random_bits", "evidence": "dataflow of the traced program: the key operand of a "
                     "random_bits equation depends on no argument of the function"}, **base)
    return list(out.values())


def _mentions_random(closed_jaxpr: Any) -> bool:
    """Cheap pre-check on the printed primitive names of the top level and nested bodies."""
    from .jaxpr_stats import walk_bodies

    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    return any(eqn.primitive.name in _DRAWS or eqn.primitive.name.startswith("random_")
               for _, jx, _ in walk_bodies(jaxpr) for eqn in jx.eqns)
