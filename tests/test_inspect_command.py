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
    # the slowest compile is usually the 12-step one, but a loaded machine (or the process's first compile)
    # can make the 4-step one slower: the command must follow whichever was slowest in this run
    slowest = max(watch["events"], key=lambda e: sum(e["phases"].values()))
    assert slowest["function"] == "relax" and slowest["signature"]["static"]["n"] in ("4", "12")
    n = slowest["signature"]["static"]["n"]
    shape = {"4": "f32[64,32]", "12": "f32[128,32]"}[n]
    cmd = watch["inspect_command"]
    assert cmd["target"] == "prog.py:relax" and cmd["detail"] == f"#{slowest['index']}"
    argv = _printed_command(p.stderr + p.stdout, "Explain the slowest compile")
    assert argv == ["inspect", "prog.py:relax", "--arg", shape, "--arg", "1.0", "--static", f"n={n}"]
    assert f"jitscope inspect prog.py:relax --arg &#x27;{shape}&#x27;" in (tmp_path / "w.html").read_text()
    # run it, as a user would paste it
    r = _run(*argv, "--no-run", "--no-numerics", "--json", "i.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    inspected = json.loads((tmp_path / "i.json").read_text())
    assert inspected["target"] == "prog.py:relax"
    got = [(leaf["path"], leaf["shape"], leaf["dtype"], leaf["weak_type"]) for leaf in inspected["signature"]["leaves"]]
    want = [(leaf["path"], leaf["shape"], leaf["dtype"], leaf["weak_type"]) for leaf in slowest["signature"]["leaves"]]
    assert got == want == [("x", [64 if n == "4" else 128, 32], "float32", False), ("scale", [], "float32", True)]
    assert inspected["signature"]["static"] == slowest["signature"]["static"]
    assert inspected["jaxpr"]["by_primitive"]["tanh"] == int(n)  # the same program: n unrolled steps


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
    ("def f(x):\n    return x\n", "f", _sig(LeafSpec("x", (8, 4), "float32", sharding="NamedSharding(mesh=('x':8), "
                                                "spec=P('x', None))")), "sharded over devices"),
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
    assert target_for(script, "f", "/") == script + ":f"  # from the root: absolute (docs/cli.md "Paths")


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


def test_compare_prints_a_runnable_inspect_command_for_the_losing_variant(cli, tmp_path):
    out = tmp_path / "c.json"
    p = cli("compare", "compare_losing:looped", "--variant", "unrolled=compare_losing:unrolled", "--arg", "f32[8,8]",
            "--calls", "1", "--sample-seconds", "0.05", "--min-samples", "2", "--no-phases", "--json", str(out),
            "--html", str(tmp_path / "c.html"))
    assert p.returncode == 0, p.stderr
    data = json.loads(out.read_text())
    validate(data)
    rec = data["recommendation"]
    assert rec["best"] != "unrolled" and rec["totals_s"]["unrolled"] > rec["totals_s"]["jit(looped)"]
    assert data["inspect_command"]["detail"] == "unrolled" and data["inspect_command"]["explains"] == "losing_variant"
    argv = _printed_command(p.stdout, "Explain the losing variant")
    assert argv == ["inspect", "compare_losing:unrolled", "--arg", "f32[8,8]"]
    assert "jitscope inspect compare_losing:unrolled" in (tmp_path / "c.html").read_text()
    r = cli(*argv, "--no-run", "--no-numerics", "--json", str(tmp_path / "i.json"))
    assert r.returncode == 0, r.stderr
    inspected = json.loads((tmp_path / "i.json").read_text())
    assert inspected["target"] == "compare_losing:unrolled"
    assert [(leaf["shape"], leaf["dtype"]) for leaf in inspected["signature"]["leaves"]] == [([8, 8], "float32")]
    assert inspected["jaxpr"]["by_primitive"]["tanh"] == 400  # the unrolled program, not the fori_loop


def test_no_losing_variant_command_when_the_jitted_variant_wins(cli, tmp_path):
    p = cli("compare", "compare_losing:looped", "--arg", "f32[8,8]", "--sample-seconds", "0.05", "--min-samples", "2",
            "--no-phases", "--json", str(tmp_path / "c.json"))
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["recommendation"]["best"] == "jit(looped)"  # steady state: 400 fused steps beat 1,200 eager ops
    assert data["inspect_command"] is None and "Explain the losing variant" not in p.stdout


def test_scale_prints_a_runnable_inspect_command_for_the_largest_size(cli, tmp_path):
    p = cli("scale", "scale_sum:make", "--sizes", "8,16,24", "--no-run", "--json", str(tmp_path / "s.json"),
            "--html", str(tmp_path / "s.html"))
    assert p.returncode == 0, p.stderr
    data = json.loads((tmp_path / "s.json").read_text())
    validate(data)
    assert data["inspect_command"]["detail"] == "n=24"
    argv = _printed_command(p.stdout, "Explain the largest size")
    assert argv == ["inspect", "tests/fixtures/scale_sum.py:builtin_sum", "--arg", "f32[24]", "--arg", "1.0"]
    assert "jitscope inspect tests/fixtures/scale_sum.py:builtin_sum" in (tmp_path / "s.html").read_text()
    r = cli(*argv, "--no-run", "--no-numerics", "--json", str(tmp_path / "i.json"))
    assert r.returncode == 0, r.stderr
    inspected = json.loads((tmp_path / "i.json").read_text())
    assert [(leaf["shape"], leaf["weak_type"]) for leaf in inspected["signature"]["leaves"]] == [([24], False),
                                                                                               ([], True)]
    assert inspected["bloat"][0]["repeats"] == 24  # the largest size's program: 24 unrolled additions
    lam = cli("scale", "scale_sum:make_lambda", "--sizes", "8,16", "--no-run", "--json", str(tmp_path / "l.json"))
    assert lam.returncode == 0 and "Explain the largest size" not in lam.stdout
    assert json.loads((tmp_path / "l.json").read_text())["inspect_command"] is None
