"""Tracer errors explained: the user's line, what was traced, and the fix, instead of a traceback.

``explain(exc, static_hint)`` turns an exception raised while tracing into a ``Finding`` with
code ``tracer-error`` (a JAX tracer error) or ``trace-failed`` (any other exception: the
function is not traceable as written). The location is the deepest frame of the user's code
in the traceback (``_jaxcompat.exception_user_frames``); the argument the value depends on is
read from JAX's message ("depends on the value of the argument x"); the advice is chosen by
error class and refined by the source line (a ``print`` gets the catalogue's print advice,
``jaxmodel/fixes.py``).
"""

from __future__ import annotations

import linecache
import re
from typing import Any

from ..jaxmodel import fixes
from ..model import Finding, Fix, Location
from .fix_source import add_static

_ARG_RE = re.compile(r"depends on the value of the arguments? ['`]?([A-Za-z_][\w\[\]'\.]*)")
_BUILTIN_RE = re.compile(r"(?<![\w.])(max|min|any|all|sorted)\s*\(")
_SHAPE_RE = re.compile(r"(traced array with shape \S+|got \S+\[[^\]]*\]|JitTracer\([^)]*\))")

# error class name -> (what happened, advice title, advice text). {arg} is the argument name.
ADVICE: dict[str, tuple[str, str, str]] = {
    "TracerBoolConversionError": (
        "Python control flow (if / while / and / or / bool()) on a traced value",
        "branch with jnp.where / lax.cond, or make {arg} static",
        "Under jit {arg} is an abstract tracer, so Python cannot decide the branch. For a data-dependent "
        "choice use jnp.where(cond, a, b) or lax.cond(cond, f_true, f_false, ...) (lax.while_loop for loops); "
        "if {arg} is a configuration value, {static}.",
    ),
    "TracerIntegerConversionError": (
        "a traced value used as a Python int (range(), list index, int())",
        "make {arg} static, or use lax.fori_loop / lax.dynamic_slice / jnp.take",
        "Python needs a concrete integer here. If {arg} sets a size or trip count, {static}; to index with a traced value use jnp.take or "
        "lax.dynamic_slice; to loop a traced number of times use lax.fori_loop.",
    ),
    "TracerArrayConversionError": (
        "a traced value converted to a NumPy array (np.asarray / a numpy function)",
        "use jax.numpy instead of numpy inside jit",
        "NumPy needs concrete data. Replace np.* with the jnp.* equivalent; for code that must run on the "
        "host use jax.pure_callback.",
    ),
    "NonConcreteBooleanIndexError": (
        "boolean-mask indexing x[mask]: the result's shape depends on the data",
        "use jnp.where, or give the size with a size= argument",
        "jit needs static shapes. Keep the shape and say what the masked-out elements mean to the "
        "reduction: jnp.sum(x, where=mask), jnp.mean(x, where=mask), jnp.max(x, where=mask, initial=-jnp.inf) "
        "(jnp.where(mask, x, 0) is right for a sum but changes a mean: the zeros are counted in its "
        "denominator); or select a fixed number of elements with jnp.nonzero(mask, size=K, fill_value=0).",
    ),
    "ConcretizationTypeError": (
        "a concrete Python value was needed from a traced value",
        "make {arg} static, or keep the value as an array",
        "If {arg} decides a shape or a Python-level choice, {static}. To convert a dtype use x.astype(...); "
        "to see a value, return it and print it outside the jitted function.",
    ),
    "UnexpectedTracerError": (
        "a tracer leaked out of its trace (stored in a global, a closure or an object)",
        "return values instead of storing them",
        "A value from one trace was kept (in a global list, self.attr, a closure) and used later. Return it "
        "from the function instead; set jax.config.update('jax_check_tracer_leaks', True) to find the leak.",
    ),
    "KeyReuseError": (
        "a PRNG key was used twice",
        "split the key with jax.random.split before each use",
        "Reusing a key gives correlated random numbers; split it: key, sub = jax.random.split(key).",
    ),
    "ShapeFromTracer": (
        "a shape built from a traced value",
        "make {arg} static",
        "Array shapes must be known when tracing. For the size argument, {static}, or "
        "compute the shape from x.shape.",
    ),
}

_TRACER_ERRORS = ("TracerBoolConversionError", "TracerIntegerConversionError", "TracerArrayConversionError",
                  "NonConcreteBooleanIndexError", "UnexpectedTracerError", "KeyReuseError",
                  "ConcretizationTypeError")


def error_class(exc: BaseException) -> str:
    """The ADVICE key for ``exc`` (most specific JAX error class first), or '' for other errors."""
    names = [c.__name__ for c in type(exc).__mro__]
    for name in _TRACER_ERRORS:
        if name in names:
            return name
    if isinstance(exc, TypeError) and "Shapes must be 1D sequences of concrete values" in str(exc):
        return "ShapeFromTracer"
    return ""


def user_location(exc: BaseException) -> Location | None:
    """The deepest frame of the program's own code in the exception's traceback (an installed library's frame,
    NumPy's ``append`` receiving the tracer, is where the error surfaced, not the line to change: the program's
    call into it is); the deepest frame outside JAX when the program has none there."""
    from .._jaxcompat import exception_user_frames
    from ..model import installed_package_file

    frames = exception_user_frames(exc)
    if not frames:
        return None
    own = [f for f in frames if not installed_package_file(f[0])]
    file, func, line = (own or frames)[-1]
    return Location(file, line, function=func)


_NOT_STATIC = ("{arg} is an array, and an array cannot be a static argument (jit hashes static arguments to "
               "key its cache; arrays are unhashable). If a Python value decides the branch, size or count, pass "
               "that value as its own static argument instead.")
_STATIC_TITLES = {", or make {arg} static": "", "make {arg} static, or ": "",
                  "make {arg} static": "compute the shape from x.shape, or pass the size as its own static argument"}


def _is_array(arg: str, array_params: set[str] | None, exc: BaseException) -> bool:
    """Whether the traced argument was passed an array: known from the call when given; else from the
    tracer itself in the failing frame. A Python number becomes a weakly typed 0-d tracer; an array
    (even a 0-d one) a strongly typed one, or one with dimensions."""
    if array_params is not None:
        return arg in array_params
    tb, value = exc.__traceback__, None
    while tb is not None:
        if arg in tb.tb_frame.f_locals:
            value = tb.tb_frame.f_locals[arg]
        tb = tb.tb_next
    aval = getattr(value, "aval", None)
    if aval is None:
        return False
    return bool(getattr(aval, "shape", ())) or not getattr(aval, "weak_type", True)


def explain(exc: BaseException, static_params: list[str] | None = None,
            array_params: set[str] | None = None) -> Finding:
    """A one-finding explanation of an exception raised while tracing.

    ``static_params`` are the traced (dynamic) parameter names of the function; for a JAX
    tracer error whose message names no argument, a single one is named as the culprit.
    Other exceptions (``trace-failed``) never get that guess. ``array_params`` names the
    parameters that were passed arrays: advice never tells to make an array static (jit rejects it).
    """
    cls = error_class(exc)
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    loc = user_location(exc)
    source = linecache.getline(loc.file, loc.line).strip() if loc else ""
    m = _ARG_RE.search(text)
    arg = m.group(1).strip("'`.") if m else ""
    if cls and not arg and static_params and len(static_params) == 1:
        arg = static_params[0]  # a real tracer error in a one-argument function: that argument is traced
    shape = _SHAPE_RE.search(text)
    traced = shape.group(1) if shape else ""
    where = f" at {loc.file}:{loc.line}" if loc else ""
    details: dict[str, Any] = {"error": type(exc).__name__, "jax_message": first, "source": source,
                               "argument": arg, "traced": traced}
    if not cls:
        return Finding("trace-failed", f"tracing raised {type(exc).__name__}: {first}{where}", "error", loc,
                       name="trace-failed", details=details)
    what, title, advice = ADVICE[cls]
    if "static" in title and arg and _is_array(arg, array_params, exc):
        for old, new in _STATIC_TITLES.items():
            if old in title:
                title = title.replace(old, new)
                break
        sentences = [s for s in re.split(r"(?<=[.;]) ", advice) if "{static}" not in s]
        advice = " ".join(sentences) + " " + _NOT_STATIC
    argname = arg or "the argument"
    advice = advice.format(arg=argname, static=fixes.make_static(argname))
    title = title.format(arg=argname)
    if re.search(r"\bprint\s*\(", source) and cls in ("ConcretizationTypeError", "TracerArrayConversionError",
                                                      "TracerBoolConversionError"):
        title, why = fixes.PRINT_TRACED_VALUE.title, fixes.PRINT_TRACED_VALUE.why
        advice = f"{why} {advice}"
    builtin = _BUILTIN_RE.search(source)
    if builtin and cls == "TracerBoolConversionError":
        name = builtin.group(1)
        repl = {"sorted": "jnp.sort"}.get(name, f"jnp.{name}")
        title = f"use {repl} instead of builtin {name}()"
        advice = (f"builtin {name}() compares elements with Python's bool(), which a traced value cannot "
                  f"answer; {repl} computes it inside the program. " + advice)
    depends = f" (depends on argument '{arg}')" if arg else ""
    message = f"{type(exc).__name__}: {what}{depends}{where}"
    fix = Fix(title, advice, "advice", location=loc)
    if arg and loc is not None and "static_argnames" in advice:
        try:  # the jit line with the argument made static, where the source says which line that is
            change = add_static(loc, arg)
        except Exception:
            change = None
        if change is not None:
            fix.location, fix.replacement = change
    return Finding("tracer-error", message, "error", loc, name=cls, fix=fix, details={**details, "what": what})


_UNHASHABLE_RE = re.compile(r"Non-hashable static arguments are not supported.*?type <class '([\w.]+)'>, (.*?)\. The error",
                            re.S)


def explain_program_error(exc: BaseException) -> Finding | None:
    """Why a watched program died, when the cause is jit's: a tracer error, or an unhashable static
    argument (JAX raises before tracing). None for any other exception (the traceback says it all)."""
    if error_class(exc):
        return explain(exc)
    m = _UNHASHABLE_RE.search(str(exc))
    if isinstance(exc, ValueError) and m:
        loc = user_location(exc)
        typ, value = m.group(1), m.group(2).strip()
        tuple_hint = {"list": "a tuple", "dict": "a tuple of (key, value) pairs or a frozen dataclass",
                      "set": "a frozenset"}.get(typ, "a hashable value (tuple, frozen dataclass)")
        where = f" at {loc.file}:{loc.line}" if loc else ""
        return Finding("static-unhashable",
                       f"a static argument is a {typ} ({value}): jit hashes static arguments to key its cache, "
                       f"and a {typ} cannot be hashed{where}", "error", loc, name="static-unhashable",
                       fix=Fix(f"pass {tuple_hint} instead of a {typ}",
                               f"Static arguments must be hashable and compare by value; convert the {typ} at the "
                               f"call site (e.g. tuple({value})) or make the argument traced.", "advice",
                               location=loc),
                       details={"error": type(exc).__name__, "type": typ, "value": value})
    return None
