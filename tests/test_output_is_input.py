"""Never overwrite an input (issue #9 item 1): every output option x every input of every command.

Each output path is resolved (symlinks and ``..`` count) and refused with exit 2 and one
``jitscope:`` line when it is the watched script, a target / ``--inner`` / ``--variant`` /
``--args-from`` module file, a linted file, the ``--config`` file, the re-rendered result, or
another output of the same run; the input is left byte for byte as it was, and nothing is
measured or run. The matrix runs the real CLI entry point in-process (the check comes before
any import of the target); a few cases run as real subprocesses too.
"""

from __future__ import annotations

import os

import pytest

from jitscope.cli import main

PROG = """\
import jax.numpy as jnp

print("RAN")


def f(x):
    return jnp.sin(x)


def g(x):
    return f(x) * 2


def make(n):
    return f, (jnp.ones(n),)


def args():
    return (jnp.ones(3),)
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A project in ``tmp_path``: ``oi_prog.py`` (importable as ``oi_prog``), ``pkg/oi_mod.py``,
    a pyproject.toml and a saved result; cwd is ``tmp_path``."""
    (tmp_path / "oi_prog.py").write_text(PROG, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "oi_mod.py").write_text(PROG, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.jitscope]\n", encoding="utf-8")
    (tmp_path / "r.json").write_text('{"kind": "lint", "format_version": 1}\n', encoding="utf-8")
    (tmp_path / "link.py").symlink_to(tmp_path / "oi_prog.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # restores sys.path (module_file may prepend the cwd)
    return tmp_path


CALL = ["--arg", "f32[3]", "--budget", "0.01"]
# (command line with {out} for the output path, the input file the output points at, words in the message)
CASES = [
    *[(["inspect", "oi_prog.py:f", *CALL, opt, "{out}"], "oi_prog.py", "the target module")
      for opt in ("--json", "--html")],
    (["inspect", "oi_prog:f", *CALL, "--json", "{out}"], "oi_prog.py", "the target module"),  # dotted name
    (["inspect", "pkg/oi_mod.py:f", *CALL, "--html", "{out}"], "pkg/oi_mod.py", "the target module"),
    (["inspect", "oi_prog.py:f", "--args-from", "pkg/oi_mod.py:args", "--json", "{out}"], "pkg/oi_mod.py",
     "the --args-from module"),
    *[(["compare", "oi_prog.py:f", *CALL, opt, "{out}"], "oi_prog.py", "the target module")
      for opt in ("--json", "--html")],
    (["compare", "oi_prog.py:g", "--inner", "pkg/oi_mod.py:f", *CALL, "--json", "{out}"], "pkg/oi_mod.py",
     "the --inner module"),
    (["compare", "--variant", "a=pkg/oi_mod.py:f", *CALL, "--html", "{out}"], "pkg/oi_mod.py",
     "the --variant module"),
    (["compare", "oi_prog:f", "--args-from", "pkg/oi_mod.py:args", "--json", "{out}"], "pkg/oi_mod.py",
     "the --args-from module"),
    *[(["scale", "oi_prog.py:make", "--sizes", "4,8", opt, "{out}"], "oi_prog.py", "the target module")
      for opt in ("--json", "--html")],
    *[(["watch", opt, "{out}", "oi_prog.py"], "oi_prog.py", "the watched script")
      for opt in ("--json", "--html", "--trace", "--events")],
    (["watch", "--events", "{out}", "-m", "oi_prog"], "oi_prog.py", "the watched module"),
    *[(["lint", "oi_prog.py", opt, "{out}"], "oi_prog.py", "a linted file")
      for opt in ("--json", "--html", "-o", "--output-file")],
    *[(["lint", ".", opt, "{out}"], "pkg/oi_mod.py", "a linted file") for opt in ("--json", "-o")],  # in a tree
    (["lint", "oi_prog.py", "--config", "pyproject.toml", "-o", "{out}"], "pyproject.toml", "the --config file"),
    (["report", "r.json", "-o", "{out}"], "r.json", "the result file"),
]


SPELLED = [(*case, spelling) for case in CASES for spelling in ("plain", "dotdot", "symlink")
           if spelling != "symlink" or case[1] == "oi_prog.py"]  # link.py -> oi_prog.py


@pytest.mark.parametrize("argv,victim,words,spelling", SPELLED,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_an_output_that_is_an_input_is_refused(tree, capsys, argv, victim, words, spelling):
    out = {"plain": victim, "dotdot": os.path.join("pkg", "..", victim), "symlink": "link.py"}[spelling]
    before = (tree / victim).read_bytes()
    code = main([a.replace("{out}", out) for a in argv])
    err = capsys.readouterr()
    assert code == 2, err
    lines = err.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and "would overwrite" in lines[0], err.err
    assert words in lines[0] and victim.split("/")[-1] in lines[0], lines[0]
    assert (tree / victim).read_bytes() == before
    assert "RAN" not in err.out and err.out == ""  # refused before anything ran or was printed


OUTPUT_PAIRS = [
    (["inspect", "oi_prog.py:f", *CALL], "--json", "--html"),
    (["compare", "oi_prog.py:f", *CALL], "--html", "--json"),
    (["scale", "oi_prog.py:make", "--sizes", "4,8"], "--json", "--html"),
    (["watch", "oi_prog.py"], "--events", "--trace"),
    (["watch", "oi_prog.py"], "--json", "--events"),
    (["lint", "oi_prog.py"], "--json", "--output-file"),
    (["demo", "--only", "selu", "--quick", "--no-progress"], "--json", "--html"),
]


@pytest.mark.parametrize("argv,first,second", OUTPUT_PAIRS)
def test_two_outputs_of_one_run_on_the_same_file_are_refused(tree, capsys, argv, first, second):
    # options go before the script for watch; for the others anywhere
    code = main([argv[0], first, "out.txt", second, "pkg/../out.txt", *argv[1:]])
    err = capsys.readouterr()
    assert code == 2, err
    (line,) = err.err.strip().splitlines()
    assert line.startswith("jitscope: ") and "same file as" in line and "give each output its own path" in line
    assert f"{first} " in line and f"{second} " in line, line
    assert not (tree / "out.txt").exists() and err.out == ""


def test_inspect_dump_files_count_as_outputs(tree, capsys):
    code = main(["inspect", "oi_prog.py:f", *CALL, "--dump", "d", "--json", "d/01_jaxpr.txt"])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and line.startswith("jitscope: --dump d: same file as --json d/01_jaxpr.txt"), line


def test_scale_plot_files_count_as_outputs(tree, capsys):
    (tree / "p.svg").symlink_to(tree / "oi_prog.py")
    code = main(["scale", "oi_prog.py:make", "--sizes", "4,8", "--plot", "p"])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and line == "jitscope: --plot p: would overwrite the target module oi_prog.py; choose another path"


def test_a_new_output_beside_the_inputs_still_works(tree, capsys):
    code = main(["lint", ".", "--no-config", "--json", "pkg/new.json", "-o", "new.txt"])
    assert code in (0, 1), capsys.readouterr().err
    assert (tree / "pkg" / "new.json").is_file() and (tree / "new.txt").is_file()


def test_dev_null_takes_every_output_and_stays_a_device(tree, capsys):
    import stat

    code = main(["lint", "oi_prog.py", "--no-config", "--json", "/dev/null", "--html", "/dev/null", "-o", "/dev/null"])
    assert code in (0, 1), capsys.readouterr().err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_json_through_a_symlink_writes_the_target_and_keeps_the_link(tree, capsys):
    (tree / "real.json").write_text("old\n")
    (tree / "out.json").symlink_to(tree / "real.json")
    assert main(["lint", "oi_prog.py", "--no-config", "--json", "out.json"]) in (0, 1), capsys.readouterr().err
    assert (tree / "out.json").is_symlink() and '"kind": "lint"' in (tree / "real.json").read_text()


def test_watch_events_on_the_script_in_a_real_process(cli, tree):
    """The issue's first report: ``watch --events prog.py prog.py`` emptied the script and exited 0."""
    before = (tree / "oi_prog.py").read_bytes()
    p = cli("watch", "--events", "oi_prog.py", "oi_prog.py", cwd=tree)
    assert p.returncode == 2 and "RAN" not in p.stdout
    assert p.stderr.strip() == ("jitscope: --events oi_prog.py: would overwrite the watched script oi_prog.py; "
                                "choose another path")
    assert (tree / "oi_prog.py").read_bytes() == before


def test_inspect_json_on_the_target_in_a_real_process(cli, tree):
    before = (tree / "oi_prog.py").read_bytes()
    p = cli("inspect", "oi_prog:f", "--arg", "f32[3]", "--json", "oi_prog.py", cwd=tree,
            env={"PYTHONPATH": str(tree)})
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().startswith("jitscope: --json oi_prog.py: would overwrite the target module ")
    assert (tree / "oi_prog.py").read_bytes() == before
