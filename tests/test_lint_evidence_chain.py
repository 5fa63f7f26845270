"""`lint --evidence` with the full chain of the program's frames an error passed through (issue #25 item 3).

Real programs under `jitscope watch --trace-evidence` (a subprocess, real jax.jit on CPU): a library package
(the linted tree) called by a driver outside it. The driver dies of an error JAX raised:

* in a function of the DRIVER that the library traced with a value it should have kept static (the library's
  jitted lambda passes `n` traced): the innermost frame of the user's code is the driver's, so the event's own
  line is outside the linted tree; lint reports it at the innermost frame of the chain inside the tree (the
  library's line, traced), the driver's line and its call as related;
* about a value JAX refused to trace, at a pytree path JAX names (`op.tags`, a `frozenset` field a registered
  dataclass leaves dynamic): reported where the field is declared in the library, the driver's call related;
* of a class no static rule covers (a pytree structure mismatch of a `scan` carry, with JAX's own frames
  filtered from the traceback): JS701, an error at the library's line, with JAX's message; a class a rule covers
  (`lax.switch` branches whose dtypes differ: JS305) keeps that rule's code.

Look-alikes stay quiet: a driver assertion about a result (no JAX on the way), an error the program catches.
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax import lax
from test_lint_evidence_events import _cli

LIB = '''\
import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import lax


def fit(loss, x, steps):
    run = jax.jit(lambda x, n: loss(x, n))
    return run(x, steps)


def pick(i, x):
    branches = [lambda v: v * 2.0, lambda v: v.astype(jnp.int32)]
    return jax.jit(lambda i, x: lax.switch(i, branches, x))(i, x)


def accumulate(xs):
    def body(carry, x):
        return (carry, x), x

    return lax.scan(body, jnp.zeros(()), xs)


def double(x):
    return jax.jit(lambda v: v * 2)(x)


@functools.partial(jax.tree_util.register_dataclass, data_fields=["w", "tags"], meta_fields=[])
@dataclasses.dataclass
class Op:
    w: jax.Array
    tags: frozenset


@functools.partial(jax.tree_util.register_dataclass, data_fields=["w"], meta_fields=["tags"])
@dataclasses.dataclass
class StaticOp:
    w: jax.Array
    tags: frozenset


def make(w, cls=Op):
    return cls(w, frozenset({"symmetric"}))


def decay(count, lr):
    def reset():
        new_count = 0
        return new_count, lr

    def keep():
        new_count = count * 0.5
        return new_count, lr

    return jax.jit(lambda c: lax.cond(c > 3, reset, keep))(count)


def decay_fixed(count, lr):
    def reset():
        new_count = jnp.zeros_like(count)
        return new_count, lr

    def keep():
        new_count = count * 0.5
        return new_count, lr

    return jax.jit(lambda c: lax.cond(c > 3, reset, keep))(count)
'''
LINES = {"fit": 10, "switch": 16, "scan": 23, "tags": 34}

DRIVERS = {
    "static": '''\
import jax.numpy as jnp
from mylib import core


def loss(x, n):
    total = x
    for _ in range(n):
        total = total * x
    return total.sum()


print(core.fit(loss, jnp.ones(3), 3))
''',
    "switch": '''\
import jax.numpy as jnp
from mylib import core

print(core.pick(1, jnp.ones(3)))
''',
    "scan": '''\
import jax.numpy as jnp
from mylib import core

print(core.accumulate(jnp.ones(3)))
''',
    "field": '''\
import jax
import jax.numpy as jnp
from mylib import core

op = core.make(jnp.ones(2))
print(jax.jit(lambda op: op.w * 2)(op))
''',
    "static_field": '''\
import jax
import jax.numpy as jnp
from mylib import core

op = core.make(jnp.ones(2), core.StaticOp)
print(jax.jit(lambda op: op.w * 2)(op))
''',
    "branch": '''\
import jax.numpy as jnp
from mylib import core

print(core.decay(jnp.float32(5.0), 0.1))
''',
    "branch_fixed": '''\
import jax.numpy as jnp
from mylib import core

print(core.decay_fixed(jnp.float32(5.0), 0.1))
''',
    "assert": '''\
import jax.numpy as jnp
from mylib import core

out = core.double(jnp.ones(3))
assert float(out.sum()) == 7.0, "wrong result"
''',
    "caught": '''\
import jax.numpy as jnp
from mylib import core

try:
    core.accumulate(jnp.ones(3))
except TypeError as e:
    print("caught", type(e).__name__)
''',
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return record_runs(tmp_path_factory.mktemp("chain"), LIB, DRIVERS)


def record_runs(root: Path, lib: str, drivers: dict[str, str]) -> Path:
    """``root`` with the package ``mylib`` (``core.py``: ``lib``) and each driver run under watch into
    ``root/<name>-ev.json`` (the drivers are outside the package: the tree linted is ``mylib``)."""
    (root / "mylib").mkdir()
    (root / "mylib" / "__init__.py").write_text("")
    (root / "mylib" / "core.py").write_text(lib)
    for name, src in drivers.items():
        (root / f"drive_{name}.py").write_text(src)
        _cli("watch", "-q", "--trace-evidence", str(root / f"{name}-ev.json"), str(root / f"drive_{name}.py"),
             cwd=root)
        assert (root / f"{name}-ev.json").is_file(), name
    return root


def _lint(root: Path, name: str) -> list[dict]:
    proc = _cli("lint", "--no-config", "--exit-zero", "--format", "json", "--evidence", str(root / f"{name}-ev.json"),
                str(root / "mylib"), cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)["findings"]


def _at(findings: list[dict], line: int) -> list[dict]:
    return [f for f in findings if f["location"]["file"].endswith("core.py") and f["location"]["line"] == line]


def test_jax_fails_as_the_programs_say():
    """The model: the library's lambda traces `n`; switch branches of different dtypes and a carry whose
    structure changes are TypeErrors JAX raises while tracing (no static rule covers the last two)."""
    with pytest.raises(jax.errors.TracerIntegerConversionError):
        jax.jit(lambda x, n: [x for _ in range(n)])(jnp.ones(3), 3)
    with pytest.raises(TypeError):
        jax.jit(lambda i, x: lax.switch(i, [lambda v: v * 2.0, lambda v: v.astype(jnp.int32)], x))(1, jnp.ones(3))
    with pytest.raises(TypeError):
        lax.scan(lambda c, x: ((c, x), x), jnp.zeros(()), jnp.ones(3))
    ns: dict = {}
    exec(compile(LIB, "lib.py", "exec"), ns)
    with pytest.raises(TypeError, match="at path op.tags"):
        jax.jit(lambda op: op.w * 2)(ns["make"](jnp.ones(2)))
    assert jax.jit(lambda op: op.w * 2)(ns["make"](jnp.ones(2), ns["StaticOp"])).shape == (2,)


def test_the_event_keeps_the_full_chain_of_user_frames(tree):
    data = json.loads((tree / "static-ev.json").read_text())
    (ev,) = [e for e in data["events"] if e["runtime_code"] == "crash" or e["code"] == "JS103"][:1]
    files = [(Path(f["file"]).name, f["function"]) for f in ev["frames"]]
    assert ("drive_static.py", "<module>") in files and ("core.py", "fit") in files, files
    assert ("core.py", "fit.<locals>.<lambda>") in files, files
    inner = ev["frames"][-1]
    assert Path(inner["file"]).name == "drive_static.py" and inner["function"] == "loss" and inner["traced"]
    assert Path(ev["file"]).name == "drive_static.py"  # the innermost user frame: outside the library


def test_an_error_in_the_drivers_code_is_reported_at_the_librarys_line(tree):
    found = [f for f in _at(_lint(tree, "static"), LINES["fit"]) if f["details"].get("observed")]
    assert [(f["code"], f["severity"]) for f in found] == [("JS103", "error")], found
    related = found[0]["details"]["related"]
    assert related[0]["file"].endswith("drive_static.py") and "raised" in related[0]["message"]
    assert "while tracing" in found[0]["message"] or "JAX raised" in found[0]["message"]


def test_an_error_no_rule_covers_is_js701(tree):
    found = [f for f in _lint(tree, "scan") if f["details"].get("observed")]
    assert [(f["code"], f["location"]["line"], f["severity"]) for f in found] == [("JS701", LINES["scan"], "error")]
    assert "TypeError" in found[0]["message"] and "pytree structure" in found[0]["message"]


def test_a_covered_class_keeps_its_rule(tree):
    found = [f for f in _lint(tree, "switch") if f["details"].get("observed")]
    assert [(f["code"], f["location"]["line"]) for f in found] == [("JS305", LINES["switch"])], found


def test_a_field_jax_refused_to_trace_is_reported_where_it_is_declared(tree):
    assert LIB.splitlines()[LINES["tags"] - 1].strip() == "tags: frozenset"
    found = [f for f in _lint(tree, "field") if f["details"].get("observed")]
    assert [(f["code"], f["location"]["line"]) for f in found] == [("JS701", LINES["tags"])], found
    assert found[0]["details"]["related"][0]["file"].endswith("drive_field.py")
    assert "op.tags" in found[0]["message"] or "frozenset" in found[0]["message"]


def test_a_cond_branch_scalar_is_reported_where_the_branch_computes_it(tree):
    """JAX lists the differing output (`DIFFERENT ShapedArray(int32[], weak_type=True) vs. ShapedArray(float32[])`):
    the weak side is the Python literal of `reset`; the fix goes where `reset` computes it, the cond related."""
    lines = LIB.splitlines()
    literal = lines.index("        new_count = 0") + 1
    call = next(i for i, t in enumerate(lines, 1) if "lax.cond(c > 3, reset, keep)" in t)
    found = [f for f in _lint(tree, "branch") if f["details"].get("observed")]
    assert [(f["code"], f["location"]["line"]) for f in found] == [("JS305", literal)], found
    assert any(r["line"] == call and "branches differ" in r["message"] for r in found[0]["details"]["related"])
    assert "Python scalar" in found[0]["message"] and f"line {call}" in found[0]["message"]
    with pytest.raises(TypeError, match="DIFFERENT|dtype"):
        jax.jit(lambda c: lax.cond(c > 3, lambda: (0, 0.1), lambda: (c * 0.5, 0.1)))(jnp.float32(5.0))


@pytest.mark.parametrize("name", ["assert", "caught", "static_field", "branch_fixed"])
def test_lookalikes_stay_quiet(tree, name):
    assert not [f for f in _lint(tree, name) if f["code"] == "JS701" or f["details"].get("observed")]


def test_cond_branch_dtypes_are_js305_by_jaxs_own_wording():
    """JAX's cond names each differing output leaf ("DIFFERENT ShapedArray(int32[]) vs. ShapedArray(float32[])"),
    without the word dtype: the same shape with another dtype is the branch dtype class (JS305); another shape
    is not (an observed crash of it is JS701)."""
    from jitscope.analyze.evidence_events import raised_rule

    def message(other):
        with pytest.raises(TypeError) as info:
            jax.jit(lambda p: lax.cond(p, lambda: jnp.zeros(3, jnp.int32), other))(True)
        return str(info.value)

    names = ("TypeError", "Exception", "BaseException", "object")
    dtype = message(lambda: jnp.zeros(3, jnp.float32))
    assert "DIFFERENT" in dtype or "dtype" in dtype, dtype
    assert raised_rule("TypeError", names, dtype)[0] == "JS305"
    shape = message(lambda: jnp.zeros(4, jnp.int32))
    assert raised_rule("TypeError", names, shape) is None, shape
