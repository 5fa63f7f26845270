"""`--fix` is safe on anyone's tree: in place, links kept, permissions honoured, no lost edits, no aborts.

The suite usually runs as root, where ``os.access`` says yes to everything: the read-only
cases below hold there too, because the owner write bit is checked as well.
"""

from __future__ import annotations

import os
import stat

import jitscope
from jitscope.lint import runner
from jitscope.lint.registry import all_rules

SRC = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x: jax.Array):\n    return sum(x)\n"
FIXED = SRC.replace("sum(x)", "jnp.sum(x, axis=0)")


def _fix(*paths):
    return jitscope.lint([str(p) for p in paths], fix=True, unsafe_fixes=True, config=False)


def test_fix_in_place_keeps_mode_inode_and_hard_links(tmp_path):
    p = tmp_path / "tool.py"
    p.write_text(SRC)
    p.chmod(0o751)
    twin = tmp_path / "twin.py"
    os.link(p, twin)
    ino = p.stat().st_ino
    r = _fix(p)
    assert r.fixes_applied == 1 and r.files_fixed == [str(p)]
    assert p.read_text() == FIXED and twin.read_text() == FIXED
    assert p.stat().st_ino == ino and stat.S_IMODE(p.stat().st_mode) == 0o751 and p.stat().st_nlink == 2


def test_fix_through_a_symlink_fixes_the_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.py"
    target.write_text(SRC)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    r = _fix(link)
    assert r.fixes_applied == 1
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == FIXED


def test_fix_keeps_bom_crlf_and_declared_encoding(tmp_path):
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + SRC.replace("\n", "\r\n").encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(("# -*- coding: latin-1 -*-\n# caf\xe9\n" + SRC).encode("latin-1"))
    r = _fix(bom, latin)
    assert r.fixes_applied == 2
    assert bom.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()
    assert latin.read_bytes() == ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).encode("latin-1")


def test_read_only_file_is_refused_with_one_reason_and_the_others_are_fixed(tmp_path):
    ro = tmp_path / "ro.py"
    ro.write_text(SRC)
    ro.chmod(0o444)
    ok = tmp_path / "ok.py"
    ok.write_text(SRC)
    r = _fix(ro, ok)
    assert ro.read_text() == SRC and stat.S_IMODE(ro.stat().st_mode) == 0o444
    assert ok.read_text() == FIXED
    assert r.files_fixed == [str(ok)] and r.fixes_applied == 1
    ro_findings = [(f.code, f.message) for f in r.findings if f.location.file == str(ro)]
    assert ro_findings[0] == ("JS002", "fixes not written: file is read-only")
    assert [c for c, _ in ro_findings[1:]] == ["JS201"]  # the unfixed finding is still reported


def test_writable_file_in_read_only_directory_is_fixed_without_a_traceback(tmp_path):
    d = tmp_path / "locked"
    d.mkdir()
    p = d / "m.py"
    p.write_text(SRC)
    other = tmp_path / "other.py"
    other.write_text(SRC)
    d.chmod(0o555)
    try:
        r = _fix(p, other)
    finally:
        d.chmod(0o755)
    assert p.read_text() == FIXED and other.read_text() == FIXED  # in place: no temp file beside it
    assert sorted(os.listdir(d)) == ["m.py"] and r.fixes_applied == 2


def test_edit_saved_after_reading_is_never_lost(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(SRC)
    outcome = runner.lint_file(str(p), frozenset(all_rules()), ("safe", "unsafe"))
    assert outcome.fixed_text == FIXED
    p.write_text(SRC + "# the user's edit\n")  # saved between lint reading and writing
    runner.write_outcome(outcome)
    assert p.read_text() == SRC + "# the user's edit\n"
    assert outcome.fixes_applied == 0
    assert [(f.code, f.message) for f in outcome.findings][0] == (
        "JS002", "fixes not written: file changed since it was read; not fixed (run lint again)")


def test_cli_reports_a_refused_fix_on_one_line(cli, tmp_path):
    ro = tmp_path / "ro.py"
    ro.write_text(SRC)
    ro.chmod(0o444)
    r = cli("lint", "--fix", "--unsafe-fixes", "--no-snippet", str(ro))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{ro}:1:1: JS002 [error, certain] fixes not written: file is read-only" in r.stdout.splitlines()
    assert ro.read_text() == SRC
