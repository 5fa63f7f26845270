"""The out-of-range notice (issue 24 item 4): on a JAX outside the tested range a measuring command says so
once, on one line, after its output; a bad input or usage error stays the one line ``jitscope: <cause>``.

The CLI runs in a real subprocess whose ``jax.__version__`` is set to a release outside the range before
jitscope reads it (everything else is the installed JAX, really measured).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_CLI = "import sys, jax; jax.__version__ = sys.argv.pop(1); from jitscope.cli import main; sys.exit(main(sys.argv[1:]))"


def _cli(version: str, *args: str, cwd=None) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run([sys.executable, "-c", _CLI, version, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={**os.environ, "JAX_PLATFORMS": "cpu", "COLUMNS": "160"})


@pytest.mark.parametrize("args", [
    ("inspect", "no_such_module_anywhere:f", "--arg", "f32[3]"),  # bad input: exit 2
    ("watch", "no_such_program.py"),
    ("scale", "no_such_module_anywhere:f", "--arg", "f32[{n}]", "--sizes", "0,-1"),
    ("watch",),  # a usage error from the parser
])
def test_bad_input_on_an_untested_jax_is_still_one_line(args, tmp_path):
    p = _cli("0.13.0", *args, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and "tested range" not in lines[0], p.stderr


def test_a_measuring_command_on_an_untested_jax_says_so_once_after_its_output(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import jax, jax.numpy as jnp\nf = jax.jit(lambda x: x + 1)\nf(jnp.ones(3)); f(jnp.ones(4))\n")
    p = _cli("0.13.0", "watch", "--json", str(tmp_path / "run.json"), str(prog), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    notes = [line for line in p.stderr.splitlines() if "tested range" in line]
    assert notes == ["jitscope: note: JAX 0.13.0 is outside jitscope's tested range (0.6 - 0.12); every hook "
                     "attached (`jitscope doctor` says what each one disables)"], p.stderr
    assert p.stderr.rstrip().endswith(notes[0])  # after what the command printed
    assert (tmp_path / "run.json").exists()


def test_in_the_tested_range_no_notice(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import jax, jax.numpy as jnp\njax.jit(lambda x: x + 1)(jnp.ones(3))\n")
    p = _cli("0.12.0", "watch", str(prog), cwd=tmp_path)
    assert p.returncode == 0 and "tested range" not in p.stderr, p.stderr


def test_doctor_shows_the_range_and_the_note():
    inside = _cli("0.12.0", "doctor")
    assert inside.returncode == 0, inside.stderr
    assert "(tested range: 0.6 - 0.12)" in inside.stdout.splitlines()[0]
    outside = _cli("0.13.0", "doctor")
    assert "note: JAX 0.13.0 is outside jitscope's tested range (0.6 - 0.12)" in outside.stdout
