"""`lint --evidence`: an event a driver's line shows is reported at the tree's line that owns it (issue #25 item 3).

Real programs under `jitscope watch --trace-evidence` (a subprocess, real jax.jit / lax.scan on CPU): a library
(the linted tree) and drivers outside it whose own lines are where JAX raised or recompiled, with no frame of
the library on the error's way:

* an unhashable static argument, refused by jit's dispatch before any trace: reported at the library's jit of
  the function (the decorator that declares the static argument), the driver's call related;
* a `lax.scan` whose body returns a carry of another dtype: JAX raises after the body has returned and names
  the component by the body's parameter (`c[1]`); reported at the body's line computing that component;
* a method jitted with `self` static, hashed by identity, recompiled for each new instance: the recompile's
  function is the library's, reported at its jit decorator, saying `self (hashed by identity)`;
* an error no rule covers (JS701) on a line where a static rule already reports: one finding, not two.

Clean twins (a hashable static, a carry that keeps its dtype, one instance reused) leave nothing.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from test_lint_evidence_chain import _lint, record_runs
from test_lint_evidence_events import _cli

LIB = '''\
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames=("opts",))
def scale(x, opts):
    return x * len(opts)


def integrate(state, x):
    steps, total = state
    total = total + x * 0.5
    return (steps + 1, total), total


def integrate_fixed(state, x):
    steps, total = state
    total = total + (x * 0.5).astype(total.dtype)
    return (steps + 1, total), total


class Filter:
    def __init__(self, gain):
        self.gain = gain

    @functools.partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.gain


@jax.jit
def project(x, w):
    print("projecting", jnp.dot(x, w))
    return x


class Camera:
    fov = 2.0


@jax.jit
def render(x, camera):
    return x * camera.fov


@functools.partial(jax.jit, static_argnames=("camera",))
def render_fixed(x, camera):
    return x * camera.fov
'''


def _line(text: str) -> int:
    return next(i for i, t in enumerate(LIB.splitlines(), 1) if t.strip() == text)


DRIVERS = {
    "unhashable": "import jax.numpy as jnp\nfrom mylib import core\n\nprint(core.scale(jnp.ones(3), ['a', 'b']))\n",
    "hashable": "import jax.numpy as jnp\nfrom mylib import core\n\nprint(core.scale(jnp.ones(3), ('a', 'b')))\n",
    "carry": ("import jax.numpy as jnp\nfrom jax import lax\nfrom mylib import core\n\n"
              "print(lax.scan(core.integrate, (0, jnp.zeros((), jnp.int32)), jnp.ones(3)))\n"),
    "carry_fixed": ("import jax.numpy as jnp\nfrom jax import lax\nfrom mylib import core\n\n"
                    "print(lax.scan(core.integrate_fixed, (0, jnp.zeros((), jnp.int32)), jnp.ones(3)))\n"),
    "instances": ("import jax.numpy as jnp\nfrom mylib import core\n\nfor _ in range(4):\n"
                  "    print(core.Filter(2.0).apply(jnp.ones(3)))\n"),
    "one_instance": ("import jax.numpy as jnp\nfrom mylib import core\n\nf = core.Filter(2.0)\nfor _ in range(4):\n"
                     "    print(f.apply(jnp.ones(3)))\n"),
    "object_arg": ("import jax.numpy as jnp\nfrom mylib import core\n\ntry:\n"
                   "    core.render(jnp.ones(3), core.Camera())\nexcept TypeError as e:\n    print('caught', e)\n"),
    "object_static": "import jax.numpy as jnp\nfrom mylib import core\n\nprint(core.render_fixed(jnp.ones(3), core.Camera()))\n",
    "merged": "import jax.numpy as jnp\nfrom mylib import core\n\nprint(core.project(jnp.ones(4), jnp.ones(3)))\n",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return record_runs(tmp_path_factory.mktemp("owner"), LIB, DRIVERS)


def _observed(root: Path, name: str) -> list[dict]:
    return [f for f in _lint(root, name) if f["details"].get("observed_event")]


def test_jax_behaves_as_the_drivers_say():
    """The model, under real JAX: a list static is refused at the call (ValueError, before any trace); a scan
    carry that turns int32 into float32 is refused after the body returned, JAX naming `state[1]`; a new
    instance of a class hashed by identity is a new cache entry (one trace per instance)."""
    ns: dict = {}
    exec(compile(LIB, "lib.py", "exec"), ns)
    with pytest.raises(ValueError, match="Non-hashable static"):
        ns["scale"](jnp.ones(3), ["a"])
    with pytest.raises(TypeError, match=r"carry component state\[1\] has type int32\[\]"):
        lax.scan(ns["integrate"], (0, jnp.zeros((), jnp.int32)), jnp.ones(3))
    traces = []

    class Counting:
        def __init__(self, gain):
            self.gain = gain

        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            traces.append(1)
            return x * self.gain

    for _ in range(3):
        Counting(2.0).apply(jnp.ones(3))
    assert len(traces) == 3
    f = Counting(2.0)
    for _ in range(3):
        f.apply(jnp.ones(3))
    assert len(traces) == 4


def test_the_collector_records_the_function_the_driver_handed_to_jax(tree):
    data = json.loads((tree / "unhashable-ev.json").read_text())
    (ev,) = [e for e in data["events"] if e["code"] == "JS602"]
    assert Path(ev["file"]).name == "drive_unhashable.py"
    jit_line = _line('@functools.partial(jax.jit, static_argnames=("opts",))')
    assert [Path(s).name for s in ev["defined_at"]] == [f"core.py:{jit_line}"]


def test_an_unhashable_static_at_a_drivers_call_is_reported_at_the_librarys_jit(tree):
    found = _observed(tree, "unhashable")
    jit_line = _line('@functools.partial(jax.jit, static_argnames=("opts",))')
    assert [(f["code"], f["location"]["line"], f["severity"]) for f in found] == [("JS602", jit_line, "error")]
    assert found[0]["details"]["related"][0]["file"].endswith("drive_unhashable.py")
    assert "about the function defined here" in found[0]["message"]


def test_a_scan_carry_dtype_is_reported_where_the_body_computes_the_component(tree):
    found = _observed(tree, "carry")
    assert [(f["code"], f["location"]["line"]) for f in found] == [("JS305", _line("total = total + x * 0.5"))]
    assert found[0]["details"]["related"][0]["file"].endswith("drive_carry.py")


def test_a_per_instance_recompile_is_reported_at_the_methods_jit(tree):
    found = _observed(tree, "instances")
    jit_line = _line("@functools.partial(jax.jit, static_argnums=0)")
    assert [(f["code"], f["location"]["line"], f["severity"]) for f in found] == [("JS208", jit_line, "warning")]
    assert "self (hashed by identity)" in found[0]["message"] and "3 times" in found[0]["message"]


def test_an_error_beside_a_static_finding_on_its_line_is_one_finding(tree):
    found = _observed(tree, "merged")
    line = _line('print("projecting", jnp.dot(x, w))')
    assert [(f["location"]["line"], f["severity"]) for f in found] == [(line, "error")], found
    assert found[0]["code"] != "JS701" and "TypeError" in found[0]["message"]


def test_an_argument_jit_refused_at_a_drivers_call_is_reported_at_the_librarys_function(tree):
    """A driver passes an object jit cannot trace to the library's jitted function, and catches the TypeError
    (watch's JW103, at the driver's call): JS701 at the library's def, the driver's call related."""
    found = _observed(tree, "object_arg")
    assert [(f["code"], f["location"]["line"], f["severity"]) for f in found] == [
        ("JS701", _line("def render(x, camera):"), "error")], found
    assert "'camera'" in found[0]["message"] and found[0]["details"]["related"][0]["file"].endswith("drive_object_arg.py")


@pytest.mark.parametrize("name", ["hashable", "carry_fixed", "one_instance", "object_static"])
def test_clean_twins_stay_quiet(tree, name):
    assert _observed(tree, name) == []


KERNEL = '''\
import functools

import jax


@functools.partial(jax.jit, static_argnames=("order",))
def kernel(x, *, degree):
    return x ** degree
'''
STEP = '''\
import jax


def _step(x, n):
    return x * n


step = jax.jit(_step, static_argnums=(2,))
'''
FIXED = {"kernel": KERNEL.replace('("order",)', '("degree",)'), "step": STEP.replace("(2,)", "(1,)")}


@pytest.mark.parametrize("fixed", [False, True])
def test_jit_options_jax_refuses_against_the_signature_are_js613_at_the_jit(tmp_path, fixed):
    """JAX checks static_argnames/static_argnums against the signature when `jit` is applied (a decorator: at
    import) and raises ValueError; a program that catches it still shows it (the JAX-boundary probe): JS613 at
    the jit's line, an error. The options fixed: nothing."""
    lines = {"kernel": 6, "step": 8}
    assert KERNEL.splitlines()[lines["kernel"] - 1].startswith("@functools.partial(jax.jit")
    assert STEP.splitlines()[lines["step"] - 1].startswith("step = jax.jit(")
    (tmp_path / "opts").mkdir()
    (tmp_path / "opts" / "__init__.py").write_text("")
    for name, source in {"kernel": KERNEL, "step": STEP}.items():
        (tmp_path / "opts" / f"{name}.py").write_text(FIXED[name] if fixed else source)
    (tmp_path / "drive.py").write_text(
        "for name in ('kernel', 'step'):\n    try:\n        __import__('opts.' + name)\n"
        "    except ValueError as e:\n        print('caught', e)\n")
    proc = _cli("watch", "-q", "--trace-evidence", str(tmp_path / "ev.json"), str(tmp_path / "drive.py"), cwd=tmp_path)
    assert (tmp_path / "ev.json").is_file(), proc.stderr[-2000:]
    lint = _cli("lint", "--no-config", "--exit-zero", "--format", "json", "--evidence", str(tmp_path / "ev.json"),
                str(tmp_path / "opts"), cwd=tmp_path)
    found = [f for f in json.loads(lint.stdout)["findings"] if f["details"].get("observed_event")]
    got = {(Path(f["location"]["file"]).stem, f["code"], f["location"]["line"], f["severity"]) for f in found}
    assert got == (set() if fixed else {(n, "JS613", ln, "error") for n, ln in lines.items()}), found
    with pytest.raises(ValueError, match="invalid argnames"):
        jax.jit(lambda x, *, degree: x, static_argnames=("order",))


def test_reading_the_raising_line_runs_none_of_the_programs_code():
    """`handed_to_jax` resolves the raising line's names with getattr_static: a property of the program is not
    run (its result is not known, so it names nothing); a plain attribute holding the body is found."""
    from jitscope.collect.error_chain import handed_to_jax

    runs = []

    def body(c, x):
        return c + x, c

    class Holder:
        plain = staticmethod(body)

        @property
        def lazy(self):
            runs.append(1)
            return body

    h = Holder()
    with pytest.raises(TypeError) as plain:
        lax.scan(h.plain, jnp.int32(0), jnp.ones(3))
    with pytest.raises(TypeError) as lazy:
        lax.scan(h.lazy, jnp.int32(0), jnp.ones(3))
    before = len(runs)
    assert handed_to_jax(lazy.value) == [] and len(runs) == before
    code = body.__code__
    assert handed_to_jax(plain.value) == [f"{code.co_filename}:{code.co_firstlineno}"]
