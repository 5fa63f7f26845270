"""Each tracer error class: the user's line (marked ``# LINE: <class>`` in the fixture) and the advice."""

from __future__ import annotations

import re
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import jitscope
from jitscope.analyze.tracer_errors import error_class, explain

SRC = Path(__file__).parent / "fixtures" / "inspect_tracer_errors.py"


def marked_line(tag: str) -> int:
    for i, line in enumerate(SRC.read_text().splitlines(), 1):
        if line.rstrip().endswith(f"# LINE: {tag}"):
            return i
    raise AssertionError(tag)


CASES = [
    # function, args, marker, finding name, argument, words the advice must contain
    ("bool_conversion", (1.0,), "TracerBoolConversionError", "TracerBoolConversionError", "x",
     ["jnp.where", "lax.cond", "static_argnames=('x',)"]),
    ("integer_conversion", (1.0, 1), "TracerIntegerConversionError", "TracerIntegerConversionError", "n",
     ["static_argnames=('n',)", "jnp.take"]),
    ("array_conversion", (jnp.ones(3),), "TracerArrayConversionError", "TracerArrayConversionError", "x",
     ["jnp.", "pure_callback"]),
    ("boolean_index", (jnp.ones(3),), "NonConcreteBooleanIndexError", "NonConcreteBooleanIndexError", "",
     ["jnp.where", "size="]),
    ("concretization", (1.0,), "ConcretizationTypeError", "ConcretizationTypeError", "x",
     ["static_argnames=('x',)", "astype"]),
    ("print_float", (1.0,), "ConcretizationTypeError-print", "ConcretizationTypeError", "x",
     ["jax.debug.print"]),
    ("shape_from_tracer", (1.0, 3), "ShapeFromTracer", "ShapeFromTracer", "n", ["static_argnames=('n',)"]),
    ("builtin_max", (jnp.ones(4),), "TracerBoolConversionError-max", "TracerBoolConversionError", "x",
     ["use jnp.max instead of builtin max()"]),
]


@pytest.mark.parametrize("fn_name,args,marker,name,arg,advice", CASES, ids=[c[2] for c in CASES])
def test_tracer_error_line_and_advice(fixtures_on_path, fn_name, args, marker, name, arg, advice):
    import inspect_tracer_errors as m

    res = jitscope.inspect(getattr(m, fn_name), *args)
    assert res.status == "trace_error"
    [f] = res.findings
    assert f.code == "tracer-error" and f.name == name and f.severity == "error"
    assert f.location.file == str(SRC) and f.location.line == marked_line(marker)
    assert f.details["source"].endswith(f"# LINE: {marker}")
    if arg:
        assert f.details["argument"] == arg
    text = f.fix.title + " " + f.fix.description
    for word in advice:
        assert word in text, (word, text)


def test_unexpected_tracer_error(fixtures_on_path):
    import inspect_tracer_errors as m

    with pytest.raises(jax.errors.UnexpectedTracerError) as info:
        m.use_leaked_outside()
    f = explain(info.value)
    assert f.name == "UnexpectedTracerError" and f.location.line == marked_line("UnexpectedTracerError")
    assert "return" in f.fix.title and "jax_check_tracer_leaks" in f.fix.description


def test_key_reuse_error(fixtures_on_path):
    import inspect_tracer_errors as m

    with jax.debug_key_reuse(True):
        res = jitscope.inspect(m.key_reuse, jax.random.key(0), run=False)
    [f] = res.findings
    assert f.name == "KeyReuseError" and "jax.random.split" in f.fix.description


def test_other_exceptions_are_trace_failed():
    err = ValueError("boom")
    assert error_class(err) == ""
    f = explain(err)
    assert f.code == "trace-failed" and re.search(r"ValueError: boom", f.message)


def test_render_keeps_brackets_and_round_trips(fixtures_on_path, tmp_path):
    import io

    import inspect_tracer_errors as m

    from jitscope.render import render
    from jitscope.results import load_result
    from jitscope.schema import validate

    res = jitscope.inspect(m.boolean_index, jnp.ones(3))
    res.save(tmp_path / "r.json")
    loaded = load_result(tmp_path / "r.json")
    validate(loaded.to_dict())
    buf = io.StringIO()
    buf.write(render(loaded, "console", width=200))
    text = buf.getvalue()
    assert "return x[x < 0]" in text and "x[mask]" in text and "size=K" in text
    assert f"inspect_tracer_errors.py:{marked_line('NonConcreteBooleanIndexError')}" in text


def test_non_tracer_error_gets_no_argument_guess():
    """A ValueError while tracing (here: an unhashable static value) is not blamed on the traced argument."""

    def f(x, n):
        return x * len(n)

    res = jitscope.inspect(f, jnp.ones(3), static_argnames=("n",), n=[1, 2])
    [finding] = res.findings
    assert finding.code == "trace-failed" and finding.details["argument"] == ""
    assert "depends on" not in finding.message
    direct = explain(ValueError("boom"), ["x"])
    assert direct.code == "trace-failed" and direct.details["argument"] == ""


def test_tracer_error_in_one_dynamic_param_function_names_it():
    exc = jax.errors.TracerBoolConversionError.__new__(jax.errors.TracerBoolConversionError)
    Exception.__init__(exc, "Attempted boolean conversion of traced array")
    finding = explain(exc, ["x"])
    assert finding.details["argument"] == "x" and "static_argnames=('x',)" in finding.fix.description


def test_dynamic_params_honour_static_argnums_and_names():
    from jitscope._inspect import _dynamic_params

    def g(n, x, *rest, scale=1.0, **kw):
        return x

    assert _dynamic_params(g, (), (0,)) == ["x", "scale"]
    assert _dynamic_params(g, ("scale",), ()) == ["n", "x"]
    assert _dynamic_params(g, ("scale",), (0,)) == ["x"]


def test_program_errors_that_are_not_jits_are_left_to_the_traceback():
    from jitscope.analyze.tracer_errors import explain_program_error

    assert explain_program_error(RuntimeError("disk full")) is None
    assert explain_program_error(ValueError("bad value")) is None


def _raise_under_jit(fn, *args):
    import jax

    try:
        jax.jit(fn)(*args)
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("no error")


def test_advice_never_makes_an_array_static():
    """jit rejects an array as a static argument (unhashable): the fix must not suggest it."""
    import jax.numpy as jnp

    from jitscope.analyze.tracer_errors import explain

    def f(x):
        if x.sum() > 0:
            return x
        return -x

    def g(x, n):
        if n > 0:
            return x
        return -x

    for finding in (explain(_raise_under_jit(f, jnp.ones(3)), ["x"]),  # from the tracer in the frame
                    explain(_raise_under_jit(f, jnp.ones(3)), ["x"], {"x"}),  # from the call
                    explain(_raise_under_jit(f, jnp.float32(2.0)), ["x"])):  # a 0-d array is an array too
        assert "static_argnames" not in finding.fix.description and "static" not in finding.fix.title
        assert "cannot be a static argument" in finding.fix.description
    scalar = explain(_raise_under_jit(g, jnp.ones(3), 2), ["x", "n"])  # n was a Python int: static is right
    assert "static_argnames=('n',)" in scalar.fix.description and "make n static" in scalar.fix.title


def test_boolean_mask_advice_keeps_a_means_meaning():
    import jax.numpy as jnp

    from jitscope.analyze.tracer_errors import explain

    def f(x):
        return x[x > 0].mean()

    advice = explain(_raise_under_jit(f, jnp.ones(3)), ["x"]).fix.description
    assert "jnp.mean(x, where=mask)" in advice and "changes a mean" in advice
    x = jnp.array([1.0, -1.0, 3.0])  # and the advice is right: the where= form equals the eager mask
    assert float(jnp.mean(x, where=x > 0)) == float(x[x > 0].mean()) != float(jnp.where(x > 0, x, 0).mean())
