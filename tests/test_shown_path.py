"""One rule for the paths every report shows (docs/cli.md "Paths"): relative to the current directory when the
file is under it, else absolute; the same in the console, HTML and the timeline (issue #26: paths were mixed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from jitscope._format import shown_path

BUG = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def test_the_rule(tmp_path):
    here = str(tmp_path / "proj")
    assert shown_path(os.path.join(here, "pkg", "a.py"), here) == os.path.join("pkg", "a.py")
    assert shown_path("pkg/a.py", here) == os.path.join("pkg", "a.py")
    assert shown_path(str(tmp_path / "other" / "b.py"), here) == str(tmp_path / "other" / "b.py")
    assert shown_path("../other/b.py", here) == str(tmp_path / "other" / "b.py")  # never ../
    assert shown_path("<string>", here) == "<string>"
    assert shown_path("/usr/lib/x.py", os.sep) == "/usr/lib/x.py"  # from the root: absolute, not usr/lib/x.py
    assert shown_path(os.path.join(here, "..proj", "c.py"), here) == os.path.join("..proj", "c.py")


def _cli(*argv, cwd):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jitscope", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_lint_shows_one_form_whichever_way_the_file_was_named(tmp_path):
    proj, other = tmp_path / "proj", tmp_path / "other"
    proj.mkdir()
    other.mkdir()
    (proj / "a.py").write_text(BUG)
    (other / "b.py").write_text(BUG)
    for given in ("a.py", str(proj / "a.py")):  # relative or absolute on the command line: shown the same
        p = _cli("lint", "--no-snippet", "--html", "r.html", given, "../other/b.py", cwd=proj)
        heads = [line.split(": ")[0] for line in p.stdout.splitlines() if ": JS101" in line]
        assert heads == ["a.py:5:8", f"{other / 'b.py'}:5:8"], p.stdout
        html = (proj / "r.html").read_text().split("<script")[0]  # what is shown, not the embedded data
        assert "a.py:5" in html and f"{other / 'b.py'}:5" in html and str(proj / "a.py") not in html


def test_the_watch_timeline_and_console_show_the_program_relative(tmp_path):
    (tmp_path / "prog.py").write_text("import jax, jax.numpy as jnp\nf = jax.jit(lambda x: x + 1)\n"
                                      "f(jnp.ones(3))\nf(jnp.ones(4))\n")
    p = _cli("watch", "--timeline", "t.json", str(tmp_path / "prog.py"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "prog.py:2" in p.stderr and str(tmp_path) not in p.stderr, p.stderr  # the summary
    events = json.loads((tmp_path / "t.json").read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    sites = {e["args"].get("defined_at") for e in events if isinstance(e.get("args"), dict) and "defined_at" in e["args"]}
    assert sites == {"prog.py:2"}, sites
