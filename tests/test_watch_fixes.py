"""#11 item 2: advice that holds, on real programs under real jax.jit.

The strongest check: apply the code changes the fixes show, run the program again, and
count its compiles: exactly what "all fixes applied" promised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import pytest

from jitscope._watch import watch_program

PROG = textwrap.dedent('''\
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("window",))
    def smooth(x, window):
        return jnp.convolve(x, jnp.ones(window) / window, mode="same")


    @partial(jax.jit, static_argnames=("scale",))
    def scaled(x, scale):
        return x * scale


    @partial(jax.jit, static_argnames=("n",))
    def power(x, n):
        acc = x
        for i in range(n):
            acc = acc * x + i
        return acc


    x = jnp.ones(16)
    for w in (2, 3, 4, 5):
        smooth(x, window=w)
    for s in (1.0, 2.0, 3.0):
        scaled(x, scale=s)
    for n in (1, 2, 3):
        power(x, n=n)
    for i in range(4):
        y = jax.jit(lambda v: v * 2)(x)
    ''')


def _run(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    result = watch_program(str(path), [], explain=False)
    assert result.exit_code == 0, result.crash
    return path, result


def _per_function(result) -> dict[str, int]:
    return {f.function: f.compiles for f in result.functions}


def _apply(text: str, fixes) -> str:
    lines = text.splitlines()
    for fx in sorted((f for f in fixes if f.replacement), key=lambda f: -f.location.line):
        lo, hi = fx.location.line, fx.location.end_line or fx.location.line
        lines[lo - 1:hi] = fx.replacement.splitlines()
    return "\n".join(lines) + "\n"


def test_code_changes_remove_exactly_what_all_fixes_applied_promised(tmp_path):
    path, before = _run(tmp_path, "prog.py", PROG)
    assert _per_function(before) == {"smooth": 4, "scaled": 3, "power": 3, "<lambda>": 4}
    titles = [f.title for f in before.fixes]
    assert not [t for t in titles if "smooth" in t]  # window sets a shape: expected, not a fix
    (exp,) = before.expected_recompiles
    assert (exp.function, exp.argument, exp.why, exp.compiles) == ("smooth", "window", "sets a shape", 3)
    assert exp.location.line == 9  # jnp.ones(window)
    changes = {f.title.split("`")[1]: f.replacement for f in before.fixes}
    assert "jitted = jax.jit(lambda v: v * 2)" in changes["<lambda>"]  # hoisted before the loop
    assert changes["<lambda>"].splitlines()[1] == "for i in range(4):"
    assert "jax.lax.fori_loop(0, n, body, acc)" in changes["power"] and "@jax.jit" in changes["power"]
    assert changes["scaled"] == "@jax.jit"
    total = before.fixes_total
    assert (total.compiles, total.remaining_compiles) == (7, 7)

    fixed_text = _apply(PROG, before.fixes)
    _, after = _run(tmp_path, "fixed.py", fixed_text)
    assert len(after.events) == total.remaining_compiles
    assert _per_function(after) == {"smooth": 4, "scaled": 1, "power": 1, "<lambda>": 1}
    assert not after.fixes
    # the fixed program computes the same thing
    ns_before: dict = {}
    ns_after: dict = {}
    exec(compile(PROG + "\nout = power(x, n=3)\n", str(path), "exec"), ns_before)
    exec(compile(fixed_text + "\nout = power(x, n=3)\n", "fixed", "exec"), ns_after)
    assert jnp.allclose(ns_before["out"], ns_after["out"])


def test_console_and_json_show_the_change_the_total_and_the_expected(tmp_path):
    from jitscope.render import render

    _, result = _run(tmp_path, "prog.py", PROG)
    text = render(result, "console", width=200)
    assert "| jitted = jax.jit(lambda v: v * 2)  # built once" in text
    assert "All 3 fixes applied: 7 compiles fewer" in text
    assert "Expected, not a fix: smooth recompiles 3x for static `window`, which sets a shape" in text
    data = json.loads(render(result, "json"))
    assert data["fixes_total"]["remaining_compiles"] == 7
    assert any("fori_loop" in (f["replacement"] or "") for f in data["fixes"])
    assert data["expected_recompiles"][0]["argument"] == "window"
    from jitscope.schema.check import first_problem

    assert first_problem(data) is None
    html = render(result, "html")
    assert "jitted = jax.jit(lambda v: v * 2)  # built once" in html and "All 3 fixes applied" in html
    assert "Not a fix: smooth recompiles 3× for static `window`, which sets a shape" in html


@pytest.mark.parametrize("body", [
    "jnp.ones(w).sum()", "x[:w].sum()", "x.reshape(w, -1).sum()", "jnp.arange(w).sum()",
    "jax.random.normal(jax.random.key(0), (w,)).sum()", "jnp.zeros((w, 2)).sum()",
])
def test_a_static_that_sets_a_shape_cannot_be_traced_and_gets_no_fix(tmp_path, body):
    """What the analysis calls "sets a shape" really fails under jax.jit when traced."""
    fn = eval(f"lambda x, w: {body}", {"jax": jax, "jnp": jnp})
    with pytest.raises((TypeError, IndexError, jax.errors.ConcretizationTypeError)):
        jax.jit(fn)(jnp.ones(8), 4)
    prog = textwrap.dedent(f'''\
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=1)
        def f(x, w):
            return {body}

        for w in (1, 2, 4):
            f(jnp.ones(8), w)
        ''')
    _, result = _run(tmp_path, "shape.py", prog)
    assert len(result.events) == 3 and not result.fixes
    assert [(e.argument, e.why, e.compiles) for e in result.expected_recompiles] == [("w", "sets a shape", 2)]


def test_a_string_static_is_expected_not_a_fix(tmp_path):
    prog = textwrap.dedent('''\
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames="mode")
        def act(x, mode):
            return jnp.tanh(x) if mode == "tanh" else jax.nn.relu(x)

        for m in ("tanh", "relu"):
            act(jnp.ones(3), mode=m)
        ''')
    _, result = _run(tmp_path, "mode.py", prog)
    assert not result.fixes
    assert [(e.argument, e.why) for e in result.expected_recompiles] == [("mode", "not a number")]


def test_overlapping_fixes_are_counted_once_and_mixed_changes_claimed_by_none(tmp_path):
    prog = textwrap.dedent('''\
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames="k")
        def mix(x, k):
            return x * k

        @partial(jax.jit, static_argnames="k")
        def tree(d, k):
            return sum(d.values()) * k

        for n, k in ((3, 1), (4, 1), (3, 2), (4, 2)):
            mix(jnp.ones(n), k=k)
        tree({"a": jnp.ones(2)}, k=1)
        tree({"a": jnp.ones(2), "b": jnp.ones(2)}, k=2)  # keys and k changed together
        ''')
    _, result = _run(tmp_path, "overlap.py", prog)
    fixes = {f.title.split()[0]: f.saving_compiles for f in result.fixes}
    # buckets {3, 4} -> 4 merge two compiles, a traced k merges two: together they leave one, not zero
    assert fixes == {"Pad": 2, "Stop": 2}
    assert (result.fixes_total.compiles, result.fixes_total.sum_of_fixes) == (3, 4)
    assert result.fixes_total.remaining_compiles == 3  # one mix, two tree
    # neither the pytree fix nor the static fix alone removes tree's second compile
    assert not [f for f in result.fixes if "tree" in f.title]


def test_create_once_is_not_claimed_when_each_call_site_jits_its_own(tmp_path):
    prog = textwrap.dedent('''\
        from functools import partial
        import jax
        import jax.numpy as jnp

        def safe_norm(x, floor):
            return jnp.maximum(jnp.linalg.norm(x), floor)

        def test_a(): return jax.jit(partial(safe_norm, floor=0.1))(jnp.ones(3))
        def test_b(): return jax.jit(partial(safe_norm, floor=0.2))(jnp.ones(3))
        def test_c(): return jax.jit(partial(safe_norm, floor=0.3))(jnp.ones(3))

        test_a(); test_b(); test_c()
        ''')
    _, result = _run(tmp_path, "tests_like.py", prog)
    assert _per_function(result) == {"safe_norm": 3}
    assert not result.fixes and result.fixes_total is None


def test_hoisting_not_shown_when_the_jitted_function_uses_the_loop_variable(tmp_path):
    prog = textwrap.dedent('''\
        import jax
        import jax.numpy as jnp

        x = jnp.ones(3)
        for w in (jnp.zeros(3), jnp.ones(3), jnp.full(3, 2.0)):
            y = jax.jit(lambda v: v * w)(x)  # a closed-over array: one function, pass w as an argument
        for i in (1, 2, 3):
            y = jax.jit(lambda v: v[:i])(x)  # a bound number may set a shape (or a norm order): not claimed
        ''')
    _, result = _run(tmp_path, "closure.py", prog)
    (fix,) = result.fixes
    assert fix.title.startswith("Create the jitted") and fix.saving_compiles == 2
    assert fix.location.line == 6
    assert fix.replacement is None  # hoisting it as written would freeze w


def test_create_once_is_not_claimed_for_one_partial_per_test_parameter(tmp_path):
    """optax's numerics_test: one call site, a different ``partial(safe_norm, ord=...)`` per parameter."""
    prog = textwrap.dedent('''\
        import functools
        import jax
        import jax.numpy as jnp

        def safe_norm(x, min_norm, ord=None, axis=None, keepdims=False):
            return jnp.maximum(jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims), min_norm)

        def test_safe_norm(ord, axis, keepdims):
            f = jax.jit(jax.jacfwd(functools.partial(safe_norm, ord=ord, axis=axis, keepdims=keepdims)))
            return f(jnp.zeros((3, 4)), jnp.float32(0.0))

        for params in ((None, None, False), (2, None, True), ("fro", None, False), (1, 0, False)):
            test_safe_norm(*params)
        for _ in range(3):  # the same parameters again: these are rebuilt copies, hoisting saves them
            test_safe_norm(None, None, False)
        ''')
    _, result = _run(tmp_path, "params.py", prog)
    assert _per_function(result) == {"safe_norm": 7}
    (fix,) = result.fixes
    assert fix.title.startswith("Create the jitted") and fix.saving_compiles == 3


def test_fix_source_helpers_say_nothing_without_source():
    from jitscope.analyze import fix_source
    from jitscope.model import Location

    missing = Location("/nonexistent/prog.py", 3)
    assert fix_source.static_uses(missing, "n") == {}
    assert fix_source.hoisted_jit(missing) is None
    assert fix_source.static_to_traced(missing, ["n"]) is None


def test_a_tracer_error_fix_shows_the_jit_line_with_static_argnames_added(tmp_path):
    prog = textwrap.dedent('''\
        from functools import partial

        import jax
        import jax.numpy as jnp


        @partial(jax.jit, static_argnames=("k",))
        def scale(x, k, mode):
            if mode > 0:
                return x * k
            return x


        print(scale(jnp.ones(3), 2, 1)[0])
        ''')
    path = tmp_path / "crash.py"
    path.write_text(prog)
    result = watch_program(str(path), [], explain=False)
    assert result.exit_code == 1 and result.crash.code == "tracer-error"
    fix = result.crash.fix
    assert (fix.location.line, fix.replacement) == (7, '@partial(jax.jit, static_argnames=(\'k\', \'mode\'))')
    fixed = tmp_path / "fixed.py"
    fixed.write_text(_apply(prog, [fix]))
    p = subprocess.run([sys.executable, str(fixed)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert p.returncode == 0 and p.stdout.strip() == "2.0", p.stderr


def test_a_bare_jit_decorator_becomes_partial_with_the_static_name(tmp_path):
    from jitscope.analyze.fix_source import add_static
    from jitscope.model import Location

    path = tmp_path / "bare.py"
    path.write_text("import jax\n\n\n@jax.jit\ndef f(x, mode):\n    if mode:\n        return x\n    return -x\n")
    assert add_static(Location(str(path), 6), "mode") == (
        Location(str(path), 4, end_line=4), "@functools.partial(jax.jit, static_argnames=('mode',))")
    assert add_static(Location(str(path), 6), "x_not_a_param") is None


@pytest.mark.parametrize("body, kind", [
    ("    return sum(x * i for i in range(n))", "shape"),  # a comprehension's count: traced, it fails
    ("    for i in range(n):\n        x = x + x[:i].sum()\n    return x", "shape"),  # the counter slices
    ("    for i in range(n):\n        x = x * 2 + i\n    return x", "loop"),  # fori_loop works
    ("    return x * n", "other"),
])
def test_static_uses_kinds_match_what_jax_accepts_traced(tmp_path, body, kind):
    from jitscope.analyze.fix_source import static_uses
    from jitscope.model import Location

    src = f"import jax\nimport jax.numpy as jnp\n\ndef f(x, n):\n{body}\n"
    path = tmp_path / "uses.py"
    path.write_text(src)
    assert kind in static_uses(Location(str(path), 4), "n")
    assert kind == "other" or "other" not in static_uses(Location(str(path), 4), "n")
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    x = jnp.ones(4)
    if kind == "shape":
        with pytest.raises((TypeError, IndexError, jax.errors.ConcretizationTypeError,
                            jax.errors.TracerIntegerConversionError)):
            jax.jit(ns["f"])(x, 3)
    elif kind == "loop":  # as a Python loop it fails traced; the fori_loop form the fix shows works
        with pytest.raises(jax.errors.TracerIntegerConversionError):
            jax.jit(ns["f"])(x, 3)
        loop = jax.jit(lambda x, n: jax.lax.fori_loop(0, n, lambda i, x: x * 2 + i, x))
        assert jnp.allclose(loop(x, 3), ns["f"](x, 3))
    else:
        assert jnp.allclose(jax.jit(ns["f"])(x, 3), ns["f"](x, 3))
