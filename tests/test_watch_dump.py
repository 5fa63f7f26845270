"""#12 item 2: ``jitscope watch --dump DIR``: each user compile's jaxpr, StableHLO and optimised HLO, with
an index, linked from the HTML report; a DIR that cannot be written is refused before the program runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from jitscope.collect.compile_passes import profiler_available

PROG = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(x):
        return jnp.sin(x) * 2

    step(jnp.ones(3))
    step(jnp.ones(4))
    jax.jit(lambda x: x + 1)(jnp.ones(2))
    print("ran")
    ''')


def _jitscope(*args: str, cwd, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", **(env or {})}
    return subprocess.run([sys.executable, "-m", "jitscope", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


def test_dump_writes_every_user_compile_with_an_index_and_html_links(tmp_path):
    (tmp_path / "prog.py").write_text(PROG)
    p = _jitscope("watch", "--dump", "out", "--json", "r.json", "--html", "r.html", "prog.py", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "ran\n"
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert index["directory"] == str(tmp_path / "out")
    assert [(c["index"], c["function"]) for c in index["compiles"]] == [(0, "step"), (1, "step"), (2, "<lambda>")]
    files = sorted(os.listdir(tmp_path / "out"))
    suffixes = ("jaxpr.txt", "stablehlo.mlir", "hlo.txt") + (("passes.json",) if profiler_available() is None else ())
    assert files == sorted(["index.json", *(f"{stem}.{suffix}" for stem in ("0000_step", "0001_step", "0002_lambda")
                                             for suffix in suffixes)])
    out = tmp_path / "out"
    # the right program in each file: shapes of that compile, the user's ops, stage by stage
    assert "f32[3]" in (out / "0000_step.jaxpr.txt").read_text() and "sin" in (out / "0000_step.jaxpr.txt").read_text()
    assert "f32[4]" in (out / "0001_step.jaxpr.txt").read_text()
    assert "stablehlo.sine" in (out / "0001_step.stablehlo.mlir").read_text()
    hlo = (out / "0001_step.hlo.txt").read_text()
    assert hlo.startswith("HloModule jit_step") and "is_scheduled=true" in hlo  # optimised, not the input
    assert "add" in (out / "0002_lambda.jaxpr.txt").read_text()
    # JAX's own eager-op programs (jnp.ones outside jit) are not dumped
    assert not [f for f in files if "broadcast" in f or "convert" in f]
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["dump"]["compiles"][2]["files"]["hlo"] == "0002_lambda.hlo.txt"
    html = (tmp_path / "r.html").read_text()
    assert f'href="{(out / "0001_step.stablehlo.mlir").as_uri()}"' in html
    assert f'href="{(out / "index.json").as_uri()}"' in html
    from jitscope.schema.check import first_problem

    assert first_problem(result) is None


@pytest.mark.skipif(profiler_available() is not None, reason=f"{profiler_available()}")
def test_dump_times_each_compile_by_xla_pass(tmp_path):
    """#14 item 3: each user compile's XLA pass times, next to its HLO, listed in the index and the HTML."""
    (tmp_path / "prog.py").write_text(PROG)
    (tmp_path / "tmp").mkdir()
    p = _jitscope("watch", "--dump", "out", "--json", "r.json", "--html", "r.html", "prog.py", cwd=tmp_path,
                  env={"TMPDIR": str(tmp_path / "tmp")})
    assert p.returncode == 0, p.stderr
    out = tmp_path / "out"
    result = json.loads((tmp_path / "r.json").read_text())
    index = json.loads((out / "index.json").read_text())
    for entry, event in zip(index["compiles"], result["events"], strict=True):
        passes = json.loads((out / entry["files"]["passes"]).read_text())
        assert passes["status"] == "ok" and passes["passes"] and passes["pipelines"]
        # the compile's own time, as watch measured it; the traced passes are a part of it
        assert passes["backend_compile_s"] == pytest.approx(event["phases"]["compile"])
        assert 0 < passes["traced_s"] <= passes["backend_compile_s"]
        assert sum(q["seconds"] for q in passes["passes"]) == pytest.approx(passes["traced_s"], rel=1e-9)
        names = {q["name"] for q in passes["passes"]}
        assert "layout-assignment" in names and not any("(jit_" in n for n in names)
    assert "0001_step.passes.json" in (tmp_path / "r.html").read_text()
    assert "XLA pass times of 3 in" in p.stderr
    assert not list((tmp_path / "tmp").iterdir())  # the profiles were written there, and removed


@pytest.mark.parametrize("make", ["file", "under_a_file", "unwritable"])
def test_dump_refuses_a_file_or_an_unwritable_directory_before_running(tmp_path, make):
    (tmp_path / "prog.py").write_text("print('ran')\n")
    target = tmp_path / "d"
    if make == "file":
        target.write_text("x")
    elif make == "under_a_file":  # cannot be created, even by root
        target.write_text("x")
        target = target / "sub"
    else:
        target.mkdir()
        target.chmod(0o500)
        if os.access(target, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
    p = _jitscope("watch", "--dump", str(target), "prog.py", cwd=tmp_path)
    assert p.returncode == 2
    assert "ran" not in p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: --dump ") and "Traceback" not in p.stderr


def test_dump_in_process_keeps_the_program_working_and_hooks_removed(tmp_path):
    from jax._src import compiler
    from jax._src.interpreters import mlir

    from jitscope._watch import watch_program

    before = (mlir.lower_jaxpr_to_module, compiler.compile_or_get_cached)
    (tmp_path / "prog.py").write_text(PROG)
    result = watch_program(str(tmp_path / "prog.py"), [], explain=False, dump=str(tmp_path / "d"))
    assert result.exit_code == 0 and len(result.dump.compiles) == len(result.events) == 3
    stages = {"jaxpr", "stablehlo", "hlo"} | ({"passes"} if profiler_available() is None else set())
    assert all(set(c.files) == stages for c in result.dump.compiles)
    assert (mlir.lower_jaxpr_to_module, compiler.compile_or_get_cached) == before
