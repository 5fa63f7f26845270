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

import re
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
        if "split" in (r.first_api, r.second_api):  # a draw and a split: the keys split off derive from its bits
            effect = "the draw and the keys split from the same key are not independent"
        else:
            effect = "both draws use the same random bits"
        inner = getattr(r, "inner", None)
        if inner is not None:  # the test passed one key at two of its lines to code that drew from it
            where = f"{inner[1].function or '?'} line {inner[1].line}"
            message = (f"line {loc.line} passed a key already consumed through line {first.line} (jax.random."
                       f"{r.second_api} at {where} drew from it again){inside}: {effect}{times}")
        else:
            message = (f"jax.random.{r.second_api} at line {loc.line} consumed a key already consumed at "
                       f"{earlier}{inside}: {effect}{times}")
        out.append(RuntimeFinding(
            "JW601", fn, message, "warning", loc,
            Fix(fixes.SPLIT_KEYS.title, fixes.SPLIT_KEYS.why, location=loc), source=_source(loc),
            details={"first": first.to_dict(), "first_api": r.first_api, "api": r.second_api, "traced": r.traced,
                     "count": r.count, **({"draws": [x.to_dict() for x in inner]} if inner is not None else {}),
                     "evidence": "the same key object reached two consuming jax.random calls "
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


_ARG, _LIT, _MIXED = "arg", "literal", "mixed"
# A value that changes from one iteration of a ``lax`` loop to the next (the index, a scanned element, a carry the
# body updates): a key derived from it is a new key per step (``fold_in(key, i)``, ``key(i)``), never a constant.
_STEP = "step"
_INVARIANT = ("invariant",)  # an argument's key the same in every iteration of a loop body (neither split nor folded)
_FOLD, _SEED = "random_fold_in", "random_seed"


def _merge(origins: list[Any]) -> Any:
    if _ARG in origins:
        return _ARG
    if _STEP in origins:
        return _STEP
    rest = {o for o in origins if o != _LIT}
    if not rest:
        return _LIT
    return rest.pop() if len(rest) == 1 else _MIXED


def constant_key_draws(closed_jaxpr: Any) -> list[tuple[Any, Any]]:
    """``(equation, origin)`` for each ``random_bits`` of a traced program drawn from a key that depends on no
    argument of the function, so that every call draws the same bits. ``origin`` says where the key came from:
    ``("const",)`` a constant of the program (a key captured from a global, a closure or a static attribute),
    ``("seed", value, equation)`` a key seeded inside the function from the literal ``value``,
    ``("derived", value, equation, base)`` a key ``fold_in`` derived from the origin ``base`` and the trace-time
    ``value``, ``("invariant",)`` an argument's key drawn from in a ``lax.scan`` body and the same in every
    iteration; ``"literal"``, ``"mixed"`` or ``"step"`` (derived from a value that changes per iteration)
    otherwise. The equation is the outermost one (for a draw inside a nested call: JAX caches the bodies of its
    own jitted routines, so their source lines may be another call's).

    Dataflow from the arguments through the equations, into nested calls whose operands map one to one onto
    their body's inputs. A ``scan`` body's inputs: its constants map one to one, a carry the body returns unchanged
    keeps its origin (an argument's key becomes ``invariant``), a carry it updates and the scanned elements vary per
    iteration (``step``). Any other body (``while_loop``, conditionals) gets 'depends' for its inputs: said less."""
    from .._jaxcompat import is_literal, jaxprs_in_params

    found: list[tuple[Any, Any]] = []

    def visit(jx: Any, origin_in: list[Any], top: Any, const_origin: Any) -> list[Any]:
        origin: dict[Any, Any] = dict(zip(jx.invars, origin_in, strict=False))
        values: dict[Any, Any] = {}  # variables holding a trace-time scalar (a converted literal)
        for v in getattr(jx, "constvars", ()):
            origin[v] = const_origin

        def o(v: Any) -> Any:
            return _LIT if is_literal(v) else origin.get(v, _LIT)  # a Literal is constant

        def value(v: Any) -> Any:
            return _scalar(v.val) if is_literal(v) else values.get(v)

        for eqn in jx.eqns:
            ins = [o(v) for v in eqn.invars]
            name = eqn.primitive.name
            here = top if top is not None else eqn
            if name in _DRAWS and ins and ins[0] not in (_ARG, _STEP):
                found.append((here, ins[0]))
            subs = [getattr(s, "jaxpr", s) for s in jaxprs_in_params(eqn.params)]
            if name == "convert_element_type" and ins == [_LIT]:
                values[eqn.outvars[0]] = value(eqn.invars[0])
            if name == _SEED and ins and ins[0] == _LIT:
                outs = [("seed", value(eqn.invars[0]), here)] * len(eqn.outvars)
            elif name == _FOLD and len(ins) == 2 and ins[1] == _LIT and isinstance(ins[0], tuple):
                outs = [("derived", value(eqn.invars[1]), here, ins[0])] * len(eqn.outvars)
            elif name == "scan" and len(subs) == 1 and len(subs[0].invars) == len(ins):
                # The body is the program's own function, traced at this call: its equations carry its own lines.
                outs = visit(subs[0], _scan_body_origins(eqn, subs[0], ins), top, _LIT)
            elif len(subs) == 1 and len(subs[0].invars) == len(ins):
                outs = visit(subs[0], ins, here, _LIT)
                if len(outs) != len(eqn.outvars):
                    outs = [_merge(ins)] * len(eqn.outvars)
            else:
                for sub in subs:
                    visit(sub, [_ARG] * len(sub.invars), here, _LIT)
                outs = [_merge(ins)] * len(eqn.outvars)
            if len(outs) != len(eqn.outvars):
                outs = [_merge(ins)] * len(eqn.outvars)
            for v, out in zip(eqn.outvars, outs, strict=False):
                origin[v] = out
        return [o(v) for v in jx.outvars]

    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    visit(jaxpr, [_ARG] * len(jaxpr.invars), None, ("const",))
    return found


def _scan_body_origins(eqn: Any, body: Any, ins: list[Any]) -> list[Any]:
    """The origins of a ``scan`` body's inputs (``constant_key_draws``): constants as passed, a carry the body
    returns unchanged as passed (an argument's: ``invariant``, the same key every iteration), the rest ``step``."""
    from .._jaxcompat import scan_layout

    layout = scan_layout(eqn.params)
    if layout is None:
        return [_STEP] * len(ins)  # this JAX's layout unknown: no input is known constant across iterations
    consts, carry = layout
    out = []
    for i, origin in enumerate(ins):
        kept = i < consts or (i < consts + carry and body.outvars[i - consts] is body.invars[i])
        out.append(_INVARIANT if kept and origin == _ARG else origin if kept else _STEP)
    return out


def _derived_at(origin: Any, where: Any) -> set[tuple[str, int]]:
    """The source lines where the key of ``origin`` was seeded or folded (a chain of ``derived`` origins)."""
    lines = set()
    while isinstance(origin, tuple) and origin[0] in ("seed", "derived"):
        loc = where(origin[2])
        if loc is not None:
            lines.add((loc.file, loc.line))
        origin = origin[3] if origin[0] == "derived" else None
    return lines


def _per_step_lines(draws: list[tuple[Any, Any]], where: Any) -> set[tuple[str, int]]:
    """Lines that seeded or folded keys from two or more different trace-time values in one program: a Python loop
    unrolled by the trace (``for i in range(n): key = jax.random.key(i)``), a new key per step."""
    seen: dict[tuple[str, int], set[Any]] = {}
    for _, origin in draws:
        while isinstance(origin, tuple) and origin[0] in ("seed", "derived"):
            loc = where(origin[2])
            if loc is not None:
                seen.setdefault((loc.file, loc.line), set()).add(repr(origin[1]))
            origin = origin[3] if origin[0] == "derived" else None
    return {line for line, values in seen.items() if len(values) > 1}


def _scalar(value: Any) -> Any:
    try:
        return value.item() if hasattr(value, "item") else value
    except Exception:  # noqa: BLE001
        return None


def _written_in_source(value: Any, loc: Any) -> bool:
    """Whether the seed's value is written on its source line as the integer literal a seeding call takes
    (``jax.random.key(0)``, ``nnx.Rngs(params=0)``, ``np.random.seed(42)``): a deliberate fixed seed. A number
    elsewhere on the line (``nnx.Linear(3, 4, rngs=nnx.Rngs(STEP))`` with ``STEP = 4``) or inside a name
    (``Rngs(SEED7)``) writes no seed."""
    import linecache

    if value is None or loc is None:
        return True  # cannot tell: say nothing
    return str(value) in _seed_literals(linecache.getline(loc.file, loc.line))


_SEEDING = ("key", "seed", "rng")  # a seeding call's name (PRNGKey, key, Rngs, seed) or keyword (seed=, rngs=)
_SEED_LITERAL = re.compile(r"(?:PRNGKey|key|Rngs|seed|RngStream)\s*\(\s*(?:\w+\s*=\s*)?(-?\d+)\s*[,)]", re.IGNORECASE)


def _seed_literals(text: str) -> set[str]:
    """The integer literals a line passes to a seeding call: parsed as Python when the line parses alone, else by
    a pattern anchored on the call's opening parenthesis."""
    import ast

    try:
        tree = ast.parse(text.strip())
    except SyntaxError:
        return set(_SEED_LITERAL.findall(text))
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "").lower()
        args = [a for a in node.args if any(s in name for s in _SEEDING)]
        args += [k.value for k in node.keywords if any(s in name or s in (k.arg or "").lower() for s in _SEEDING)]
        for a in args:
            if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(a.operand, ast.Constant):
                a, sign = a.operand, "-"
            else:
                sign = ""
            if isinstance(a, ast.Constant) and type(a.value) is int:
                out.add(f"{sign}{a.value}")
    return out


_SEED_CALL = r"(?:PRNGKey|key|seed)\s*\(\s*(?:seed\s*=\s*)?([A-Za-z_]\w*)"


def _named_seed(fn: Any, loc: Any) -> bool:
    """Whether the key's seed on its source line is a name the function receives: a parameter of the function
    that seeds it (its default, or ``self.seed`` of a static ``self``) or a variable of an enclosing function (a
    factory's ``seed`` argument). The program chose that seed; a fixed stream per seed is deterministic by
    design. A seed computed on the line (``int(time.time())``) or read from a module global (a step counter the
    trace baked) is not named so and stays a finding."""
    import linecache
    import re

    from .._pycode import code_objects

    code = getattr(fn, "__code__", None)
    if code is None or loc is None:
        return False
    m = re.search(_SEED_CALL, linecache.getline(loc.file, loc.line))
    if m is None:
        return False
    name, short = m.group(1), (loc.function or "").rsplit(".", 1)[-1]
    for c in code_objects(code):
        if c.co_filename != loc.file or (c.co_name != short and c is not code):
            continue
        params = c.co_varnames[:c.co_argcount + c.co_kwonlyargcount]
        if name in params or name in c.co_freevars:
            return True
    return False


def constant_key_findings(event: Any, closed_jaxpr: Any, fn: Any, base: dict[str, Any]) -> list[RuntimeFinding]:
    """JW602 for each line of a traced program that draws random numbers from a key no argument reaches: a
    captured key, or one seeded inside the function from a value computed at trace time (a seed written as
    a number on its line, or equal to a static argument's value, is a deliberate fixed seed: not reported)."""
    from .._jaxcompat import StackCache, is_library_file
    from ..model import Location

    if closed_jaxpr is None:
        return []
    stacks = StackCache(getattr(fn, "__code__", None))

    def where(eqn: Any) -> Location | None:
        """The equation's innermost user line (a library's own, where it runs there): how the dataflow groups draws."""
        stack = stacks.stack(eqn)
        return Location(stack[-1][0], stack[-1][2], function=stack[-1][1]) if stack else None

    def program_line(eqn: Any) -> Location | None:
        # A finding's line is the program's own: the innermost frame outside installed libraries (a draw inside
        # flax's initializer is filed at the test's ``model.init`` line), the innermost user frame where none is.
        stack = stacks.stack(eqn)
        frame = next((f for f in reversed(stack) if not is_library_file(f[0])), stack[-1] if stack else None)
        return Location(frame[0], frame[2], function=frame[1]) if frame else None

    statics = {str(v) for v in (event.signature.static.values() if event.signature is not None else ())}
    draws = constant_key_draws(closed_jaxpr)
    per_step = _per_step_lines(draws, where)
    out: dict[tuple[str, int], RuntimeFinding] = {}
    for eqn, origin in draws:
        if _derived_at(origin, where) & per_step:
            continue  # a key per unrolled step (``for i in range(n): key(i)`` / ``fold_in(key, i)``): not one key
        folds = ""
        while isinstance(origin, tuple) and origin[0] == "derived":
            folds, origin = " (folded with a fixed value)", origin[3]
        if origin == ("const",):
            how, evidence = f"a key captured from a global, a closure or a static value{folds}", \
                "a constant of the program"
        elif origin == _INVARIANT:
            how = f"a key passed in and used unchanged in every iteration of a lax.scan loop{folds}"
            evidence = "a key the loop body neither splits nor folds with the loop index"
        elif isinstance(origin, tuple) and origin[0] == "seed":
            # The lines that may write the seed: the library's own (its literal seed) and the program's that called it.
            seed_at = [where(origin[2]), program_line(origin[2])]
            if str(origin[1]) in statics or any(_written_in_source(origin[1], at) or _named_seed(fn, at)
                                                for at in seed_at):
                continue  # a fixed seed the program wrote, passed static or named by a parameter: deliberate
            how = f"a key seeded from {origin[1]}, a value computed at trace time{folds}"
            evidence = f"a random_seed of the literal {origin[1]}, which its source line does not write"
        else:
            continue
        loc = program_line(eqn) or event.definition
        advice = fixes.KEY_PER_ITERATION if origin == _INVARIANT else fixes.KEY_AS_ARGUMENT
        key = (loc.file, loc.line) if loc else ("", 0)
        if key in out:
            continue
        out[key] = RuntimeFinding(
            "JW602", event.function,
            f"{event.function} draws random numbers{f' at line {loc.line}' if loc else ''} from {how}: "
            + ("every iteration draws the same numbers" if origin == _INVARIANT else
               "the key is a constant of the compiled program, and every call draws the same numbers"), "warning", loc,
            Fix(advice.title, advice.why, location=loc), source=_source(loc),
            details={"origin": "captured" if origin == ("const",) else
                     "loop-invariant" if origin == _INVARIANT else "trace-time seed",
                     "evidence": "dataflow of the traced program: the key of a random_bits equation depends on no "
                                 f"argument of the function ({evidence})"}, **base)
    return list(out.values())


# --- JW601 from a key argument the same on every iteration (``collect/key_use.LoopKeyProbe``) -------------------
_CONSUMING = ("random_bits", "random_split", "threefry2x32")


def draws_from_input(closed_jaxpr: Any, index: int) -> bool:
    """Whether the traced program consumes its input ``index`` as a key: a dataflow from it reaches a draw or a
    split (``random_bits``, ``random_split``, ``threefry2x32``) as the key operand, through wraps, slices and
    nested calls whose operands map one to one onto their body's inputs, never through ``fold_in`` (a key folded
    with the step is a new key per call) nor a body whose inputs cannot be mapped (said less)."""
    from .._jaxcompat import jaxprs_in_params

    def visit(jx: Any, tainted_in: list[bool]) -> tuple[bool, list[bool]]:
        tainted = {v for v, t in zip(jx.invars, tainted_in, strict=False) if t}
        hit = False
        for eqn in jx.eqns:
            ins = [not _is_lit(v) and v in tainted for v in eqn.invars]
            if not any(ins):
                continue
            name = eqn.primitive.name
            if name in _CONSUMING and ins[0]:
                return True, []
            if name == _FOLD:
                continue  # a new key derived from the data folded in
            subs = [getattr(s, "jaxpr", s) for s in jaxprs_in_params(eqn.params)]
            outs = [True] * len(eqn.outvars)
            if len(subs) == 1 and len(subs[0].invars) == len(ins) and eqn.primitive.name != "scan":
                hit, sub_outs = visit(subs[0], ins)
                if hit:
                    return True, []
                if len(sub_outs) == len(eqn.outvars):
                    outs = sub_outs
            tainted |= {v for v, t in zip(eqn.outvars, outs, strict=False) if t}
        return hit, [not _is_lit(v) and v in tainted for v in jx.outvars]

    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    if not 0 <= index < len(jaxpr.invars):
        return False
    return visit(jaxpr, [i == index for i in range(len(jaxpr.invars))])[0]


def _is_lit(v: Any) -> bool:
    from .._jaxcompat import is_literal

    return is_literal(v)


def loop_key_findings(keys: list[Any]) -> list[RuntimeFinding]:
    """JW601 for each call site that passes a jitted function, on every iteration of a loop, the same key the
    program draws from: every call draws the same numbers (``collect/key_use.LoopKey``)."""
    from ..jaxmodel.deliberate import is_test_file

    out: dict[tuple, RuntimeFinding] = {}
    for k in keys:
        loc = k.location
        where = (loc.file, loc.line, k.name)
        if is_test_file((k.loop or loc).file):
            continue  # a test's loop over one key checks that the same key gives the same numbers: its choice
        if where in out or not draws_from_input(k.jaxpr, k.index):
            continue
        held = f"the default value of {k.name}" if k.default else f"{k.name}, which the loop never reassigns"
        loop = f" (in the loop at line {k.loop.line})" if k.loop is not None else " inside a loop"
        out[where] = RuntimeFinding(
            "JW601", k.function,
            f"{k.function}, called at line {loc.line}{loop}, draws random numbers from {held}: the same key on "
            "every iteration, so every call draws the same numbers", "warning", loc,
            Fix(fixes.KEY_PER_ITERATION.title, fixes.KEY_PER_ITERATION.why, location=loc), source=_source(loc),
            details={"key": k.name, "default": k.default, "loop": k.loop.to_dict() if k.loop is not None else None,
                     "evidence": "the key argument of the call that compiled is the same object on every iteration "
                                 "(a name the loop never assigns, or a parameter's default the call leaves out), and "
                                 "the traced program's dataflow draws or splits from that input (not via fold_in)"})
    return list(out.values())


def seeded_key_findings(seeded: list[Any]) -> list[RuntimeFinding]:
    """JW601 for each line that consumed, on two or more iterations of a loop, keys the loop made anew from one
    literal seed (``collect/key_use.SeededKey``): new objects with the same bits, so the same numbers each time.
    Not in test files (a test reseeding in a loop compares runs on purpose, as ``jaxmodel/deliberate.py`` says)."""
    from ..jaxmodel.deliberate import is_test_file

    out = []
    for s in seeded:
        loc, seed_at = s.consumed_at, s.seed_at
        if is_test_file(seed_at.file) or _over_written_values(seed_at):
            continue  # ``for lr in (0.1, 0.01): key = PRNGKey(0)``: a sweep, each run from the same seed by design
        same = (loc.file, loc.line) == (seed_at.file, seed_at.line)
        made = "made on the same line" if same else f"made at line {seed_at.line}"
        out.append(RuntimeFinding(
            "JW601", loc.function or "?",
            f"jax.random.{s.api} at line {loc.line} consumed, on {s.count} iterations of a loop, a key {made} from "
            f"the same seed ({s.seed}) on every iteration: each iteration draws the same numbers", "warning", loc,
            Fix(fixes.KEY_PER_ITERATION.title, fixes.KEY_PER_ITERATION.why, location=loc), source=_source(loc),
            details={"seed": s.seed, "seed_at": seed_at.to_dict(), "api": s.api, "count": s.count,
                     "evidence": "keys made by jax.random.key/PRNGKey from one Python int seed at one line inside a "
                                 "loop, consumed at one line on several iterations (new objects, the same bits)"}))
    return out


def _over_written_values(at: Any) -> bool:
    """Whether the innermost loop around ``at`` walks values the program wrote down (``for lr in (0.1, 0.01)``,
    ``for cfg in [a, b]``): runs of an experiment, each seeded alike on purpose, not steps of one."""
    import ast

    from .bloat_source import _enclosing_loop

    loop = _enclosing_loop(at.file, at.line, at.line)
    return isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, (ast.Tuple, ast.List, ast.Set))
