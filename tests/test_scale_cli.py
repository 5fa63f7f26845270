"""`jitscope scale` from the command line: plot files, JSON, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jitscope.schema import validate


def test_scale_cli_plot_and_json(cli, tmp_path):
    out = tmp_path / "s.json"
    p = cli("scale", "inspect_integral:make_builtin", "--sizes", "20,40,80", "--plot", str(tmp_path / "plots" / "p"),
            "--json", str(out), "--sample-seconds", "0.01")
    assert p.returncode == 0, p.stderr
    assert "equations" in p.stdout and "use jnp.sum" in p.stdout
    png, svg = tmp_path / "plots" / "p.png", tmp_path / "plots" / "p.svg"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in svg.read_text()
    data = json.loads(out.read_text())
    validate(data)
    assert data["plot_files"] == [str(png), str(svg)]


def test_scale_cli_failed_size_exits_1(cli):
    p = cli("scale", "inspect_integral:make_fails_at_200", "--sizes", "100,200,400", "--no-run")
    assert p.returncode == 1
    assert "size-failed" in p.stdout


@pytest.mark.parametrize("argv,needle", [
    (["inspect_integral:make_jnp", "--sizes", "10,x"], "expected comma-separated integers"),
    (["inspect_integral:make_jnp", "--sizes", "10"], "two distinct positive sizes"),
    (["inspect_integral:nope", "--sizes", "10,20"], "has no attribute"),
    (["inspect_integral:make_bad_return", "--sizes", "10,20"], "must return (fn, args)"),
], ids=["bad-sizes", "one-size", "no-factory", "bad-return"])
def test_scale_cli_bad_input(cli, argv, needle):
    p = cli("scale", *argv)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("jitscope: ") and needle in p.stderr


def test_scale_cli_plot_without_matplotlib(cli, tmp_path):
    # A sitecustomize that hides matplotlib, as in an install without the `plot` extra.
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nclass _Block:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'matplotlib' or name.startswith('matplotlib.'):\n"
        "            raise ImportError('blocked')\n        return None\nsys.meta_path.insert(0, _Block())\n")
    fixtures = Path(__file__).parent / "fixtures"
    p = cli("scale", "inspect_integral:make_jnp", "--sizes", "10,20", "--plot", str(tmp_path / "p"),
            env={"PYTHONPATH": f"{tmp_path}:{fixtures}"})
    assert p.returncode == 2
    assert p.stderr.strip() == "jitscope: --plot needs matplotlib: pip install 'jitscope[plot]'"


def test_scale_cli_unwritable_plot_is_refused_before_measuring(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = tmp_path / "s.json"
    p = cli("scale", "inspect_integral:make_jnp", "--sizes", "10,20", "--no-run", "--plot", str(blocker / "p"),
            "--json", str(out))
    assert p.returncode == 2
    assert p.stderr.strip() == (f"jitscope: --plot {blocker / 'p'}.png: cannot write {blocker / 'p'}.png: "
                                f"{blocker} is not a directory")
    assert not out.exists() and p.stdout == ""  # nothing was measured
