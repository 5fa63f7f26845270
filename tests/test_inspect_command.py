"""Commands point to each other (issue #14 item 6): the `jitscope inspect` line watch prints for its slowest
compile runs for real and inspects the same function with the same shapes; what it cannot express exactly
it leaves out instead of guessing."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

from jitscope.analyze.inspect_command import InspectCommand, call_specs, command_for, for_slowest_compile, target_for
from jitscope.model import ArgSignature, CompileEvent, LeafSpec, Location
from jitscope.schema import validate

PROG = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from functools import partial


    @partial(jax.jit, static_argnames=("n",))
    def relax(x, scale, n=3):
        for _ in range(n):
            x = jnp.tanh(x) * scale + jnp.roll(x, 1)
        return x


    def main():
        x = jnp.ones((64, 32))
        relax(x, 0.5, n=4)
        relax(jnp.ones((128, 32), jnp.float32), 0.5, n=12)  # the slowest: 12 unrolled steps
        jax.jit(lambda y: y + 1)(x)


    if __name__ == "__main__":
        main()
    ''')


def _run(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


def _printed_command(text: str, title: str) -> list[str]:
    [line] = [ln for ln in text.splitlines() if ln.startswith(title)]
    argv = shlex.split(line.split(": ", 1)[1])
    assert argv[:2] == ["jitscope", "inspect"], line
    return argv[1:]


def test_watch_prints_a_runnable_inspect_command_for_its_slowest_compile(tmp_path):
    (tmp_path / "prog.py").write_text(PROG)
    p = _run("watch", "--json", "w.json", "--html", "w.html", "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    watch = json.loads((tmp_path / "w.json").read_text())
    validate(watch)
    slowest = max(watch["events"], key=lambda e: sum(e["phases"].values()))
    assert slowest["function"] == "relax" and slowest["signature"]["static"] == {"n": "12"}
    cmd = watch["inspect_command"]
    assert cmd["target"] == "prog.py:relax" and cmd["detail"] == f"#{slowest['index']}"
    argv = _printed_command(p.stderr + p.stdout, "Explain the slowest compile")
    assert argv == ["inspect", "prog.py:relax", "--arg", "f32[128,32]", "--arg", "1.0", "--static", "n=12"]
    assert "jitscope inspect prog.py:relax --arg &#x27;f32[128,32]&#x27;" in (tmp_path / "w.html").read_text()
    # run it, as a user would paste it
    r = _run(*argv, "--no-run", "--no-numerics", "--json", "i.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    inspected = json.loads((tmp_path / "i.json").read_text())
    assert inspected["target"] == "prog.py:relax"
    got = [(leaf["path"], leaf["shape"], leaf["dtype"], leaf["weak_type"]) for leaf in inspected["signature"]["leaves"]]
    want = [(leaf["path"], leaf["shape"], leaf["dtype"], leaf["weak_type"]) for leaf in slowest["signature"]["leaves"]]
    assert got == want == [("x", [128, 32], "float32", False), ("scale", [], "float32", True)]
    assert inspected["signature"]["static"] == slowest["signature"]["static"]
    assert inspected["jaxpr"]["by_primitive"]["tanh"] == 12  # the same program: 12 unrolled steps


def test_watch_skips_what_it_cannot_express_and_says_nothing(tmp_path):
    (tmp_path / "prog.py").write_text(textwrap.dedent('''\
        import jax
        import jax.numpy as jnp

        def main():
            @jax.jit
            def nested(params):
                return params["w"] * 2
            nested({"w": jnp.ones(3)})

        main()
        '''))
    p = _run("watch", "--json", "w.json", "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Explain the slowest compile" not in p.stderr + p.stdout
    assert json.loads((tmp_path / "w.json").read_text())["inspect_command"] is None


def _sig(*leaves: LeafSpec, static: dict | None = None) -> ArgSignature:
    return ArgSignature(tuple(leaves), static or {}, "\n".join(f"{leaf.path}: PyTreeDef(*)" for leaf in leaves))


def _write(tmp_path, text: str, name: str = "m.py") -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


X = LeafSpec("x", (4, 4), "float32")


@pytest.mark.parametrize("source,function,signature,why", [
    ("def f(x):\n    def g(y): return y\n    return g(x)\n", "f.<locals>.g", _sig(X), "nested"),
    ("f = lambda x: x\n", "<lambda>", _sig(X), "lambda"),
    ("class C:\n    def f(self, x): return x\n", "C.f", _sig(X), "method"),
    ("def f(x):\n    return x\n\nf = 3\n", "f", _sig(X), "rebound after the def"),
    ("def f(params):\n    return params\n", "f",
     ArgSignature((LeafSpec("params['w']", (3,), "float32"),), {}, "params: PyTreeDef({'w': *})"), "pytree"),
    ("def f(n, x):\n    return x\n", "f", _sig(X, static={"n": "3"}), "static before an array"),
    ("def f(x, *, y):\n    return x\n", "f", _sig(X, LeafSpec("y", (2,), "float32")), "keyword-only array"),
    ("def f(x, cfg):\n    return x\n", "f", _sig(X, static={"cfg": "<Cfg object at 0x1, hashed by identity>"}),
     "object static"),
    ("def f(x, mode):\n    return x\n", "f", _sig(X, static={"mode": "Mode.FAST"}), "non-literal static"),
    ("def f(x):\n    return x\n", "f", _sig(LeafSpec("x", (3,), "key<fry>")), "extended dtype"),
    ("def f(x):\n    return x\n", "f", _sig(LeafSpec("x", (3,), "float32", weak_type=True)), "weak array"),
    ("def f(x, *args):\n    return x\n", "f", _sig(X, LeafSpec("args[0]", (2,), "float32")), "varargs"),
])
def test_no_command_when_it_would_be_a_guess(tmp_path, source, function, signature, why):
    assert command_for(_write(tmp_path, source), function, signature, str(tmp_path)) is None, why


def test_specs_keep_parameter_order_scalars_statics_and_x64(tmp_path):
    path = _write(tmp_path, "def f(x, y, scale=1.0, *, n=2, mode='a'):\n    return x\n")
    sig = _sig(LeafSpec("y", (3,), "int32"), LeafSpec("x", (2, 2), "float64"),  # passed by keyword, out of order
               static={"n": "5", "mode": "'fast'"})
    cmd = command_for(path, "f", sig, str(tmp_path), explains="largest_size", detail="n=5")
    assert cmd is not None and cmd.target == "m.py:f"
    assert cmd.args == ["f64[2,2]", "i32[3]"] and cmd.static == ["n=5", "mode='fast'"]
    assert cmd.env == {"JAX_ENABLE_X64": "1"}
    assert cmd.shell() == "JAX_ENABLE_X64=1 jitscope inspect m.py:f --arg 'f64[2,2]' --arg 'i32[3]' --static n=5 " \
                          "--static 'mode='\"'\"'fast'\"'\"''"
    assert shlex.split(cmd.shell())[1:] == cmd.argv()  # the shell line says exactly the argv
    # a traced Python scalar (weak type) is written as a literal, which traces the same way
    specs = call_specs(_sig(X, LeafSpec("scale", (), "float32", weak_type=True)),
                       type("P", (), {"positional": ["x", "scale"], "positional_only": set(), "keyword_only": []})())
    assert specs == (["f32[4,4]", "1.0"], [], {})


def test_targets_name_packages_by_module_and_scripts_by_path(tmp_path):
    _write(tmp_path, "", "pkg/__init__.py")
    _write(tmp_path, "", "pkg/sub/__init__.py")
    mod = _write(tmp_path, "def f(x):\n    return x\n", "pkg/sub/model.py")
    script = _write(tmp_path, "def f(x):\n    return x\n", "scripts/run.py")
    assert target_for(mod, "f", str(tmp_path)) == "pkg.sub.model:f"
    assert target_for(script, "f", str(tmp_path)) == "scripts/run.py:f"
    assert target_for(script, "f", str(tmp_path / "scripts")) == "run.py:f"
    assert target_for(mod, "f", str(tmp_path / "pkg")) is None  # the package root is not the working directory
    assert target_for(script, "f", "/") == script.lstrip("/") + ":f"


def test_slowest_compile_skips_transforms_and_partials_and_takes_the_next(tmp_path):
    path = _write(tmp_path, "def f(x):\n    return x\n")
    loc = Location(path, 1, function="f")

    def event(index, seconds, **kw):
        return CompileEvent("f", definition=loc, signature=_sig(X), phases={"compile": seconds}, index=index, **kw)

    events = [event(0, 0.1), event(1, 0.9, transform="grad"), event(2, 0.5, bindings="partial(2); f@x:1"),
              event(3, 0.3)]
    cmd = for_slowest_compile(events, str(tmp_path))
    assert cmd is not None and cmd.detail == "#3" and cmd.seconds == pytest.approx(0.3)
    assert InspectCommand.from_dict(json.loads(json.dumps(cmd.to_dict()))) == cmd
