"""The ruff conventions of `jitscope lint`: --statistics, --output-format github, --add-noqa,
per-file-ignores, and the problem-matcher line documented in docs/lint.md. Real subprocesses of the CLI."""

from __future__ import annotations

import json
import re
import stat
import textwrap
from pathlib import Path

import pytest

import jitscope

ROOT = Path(__file__).resolve().parent.parent
SRC = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x: jax.Array):
        y = x * 2
        y.at[0].set(1.0)
        if x > 0:
            return sum(x)
        return y


    def g(xs):
        for x in xs:
            print(jax.jit(f)(x))
""")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def one_usage_line(r) -> str:
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jitscope: ") and "Traceback" not in r.stderr, r.stderr
    return lines[0]


# -- --statistics --------------------------------------------------------------------------------

def test_statistics_counts_per_code(cli, tmp_path):
    p = write(tmp_path / "m.py", SRC + SRC.replace("def f", "def f2").replace("def g", "def g2"))
    r = cli("lint", "--no-config", "--statistics", str(p))
    assert r.returncode == 1, r.stderr
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert [(n.strip(), code) for n, code, _ in rows] == [("2", "JS101"), ("2", "JS201"), ("2", "JS206"),
                                                          ("2", "JS603")]
    marks = {code: rest for _, code, rest in rows}
    assert marks["JS603"] == "[*] discarded-at-update" and marks["JS201"] == "[-] builtin-reduction"
    assert marks["JS101"].strip() == "traced-control-flow"
    js = cli("lint", "--no-config", "--statistics", "--output-format", "json", str(p))
    stats = json.loads(js.stdout)
    assert stats[0] == {"code": "JS101", "name": "traced-control-flow", "count": 2, "fixable": 0,
                        "unsafe_fixable": 0}
    assert sum(s["count"] for s in stats) == len(jitscope.lint([str(p)], config=False).findings)
    clean = write(tmp_path / "clean.py", "import jax\n")
    assert cli("lint", "--no-config", "--statistics", str(clean)).stdout == ""
    assert "--statistics" in one_usage_line(cli("lint", "--statistics", "--format", "sarif", str(p)))


# -- --output-format github ----------------------------------------------------------------------

def test_github_annotations_one_line_per_finding_with_escaping(cli, tmp_path):
    p = write(tmp_path / "a,b:c.py", SRC)
    r = cli("lint", "--no-config", "--output-format", "github", str(p))
    assert r.returncode == 1, r.stderr
    findings = jitscope.lint([str(p)], config=False).findings
    lines = r.stdout.splitlines()
    assert len(lines) == len(findings)
    esc = str(p).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    level = {"error": "error", "warning": "warning", "info": "notice"}
    for line, f in zip(lines, findings, strict=True):
        loc = f.location
        assert line == (f"::{level[f.severity]} file={esc},line={loc.line},col={loc.column},endLine={loc.end_line},"
                        f"endColumn={loc.end_column},title={f.code}::{f.code} {f.message}")
    assert {line.split(" ")[0] for line in lines} == {"::error", "::warning", "::notice"}
    # --format and --output-format are one option: json and sarif still work through either spelling
    assert json.loads(cli("lint", "--no-config", "--output-format", "json", str(p)).stdout)["findings"]
    assert json.loads(cli("lint", "--no-config", "--format", "sarif", str(p)).stdout)["version"] == "2.1.0"
    assert "invalid choice" in cli("lint", "--output-format", "junit", str(p)).stderr


def test_problem_matcher_in_docs_matches_the_github_lines(cli, tmp_path):
    """docs/lint.md gives a VS Code problem matcher; its regexp must parse what the CLI prints."""
    doc = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\n\s*\"problemMatcher\".*?)\n```", doc, re.S)
    assert block, "docs/lint.md has no problemMatcher block"
    matcher = json.loads(block.group(1))["problemMatcher"]
    pattern = matcher["pattern"]
    rx = re.compile(pattern["regexp"])
    p = write(tmp_path / "m.py", SRC)
    r = cli("lint", "--no-config", "--output-format", "github", str(p))
    findings = jitscope.lint([str(p)], config=False).findings
    for line, f in zip(r.stdout.splitlines(), findings, strict=True):
        m = rx.match(line)
        assert m, line
        assert m.group(pattern["file"]) == str(p)
        assert int(m.group(pattern["line"])) == f.location.line
        assert int(m.group(pattern["column"])) == f.location.column
        assert m.group(pattern["code"]) == f.code
        assert m.group(pattern["severity"]) in ("error", "warning", "notice")
        assert m.group(pattern["message"]).endswith(f.message)


# -- --add-noqa ----------------------------------------------------------------------------------

def test_add_noqa_suppresses_everything_and_is_idempotent(cli, tmp_path):
    p = write(tmp_path / "m.py", SRC.replace("    if x > 0:", "    if x > 0:  # why: demo"))
    p.chmod(0o640)
    r = cli("lint", "--no-config", "--add-noqa", str(p))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Added 4 noqa directives to 1 file.\n"
    text = p.read_text()
    assert "    y.at[0].set(1.0)  # noqa: JS603\n" in text
    assert "    if x > 0:  # why: demo  # noqa: JS101\n" in text
    assert "        print(jax.jit(f)(x))  # noqa: JS206\n" in text
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert cli("lint", "--no-config", str(p)).returncode == 0  # everything suppressed
    again = cli("lint", "--no-config", "--add-noqa", str(p))
    assert again.stdout == "Added 0 noqa directives to 0 files.\n" and p.read_text() == text


def test_add_noqa_merges_codes_keeps_bom_and_crlf_and_avoids_string_lines(cli, tmp_path):
    src = SRC.replace("    y.at[0].set(1.0)", "    y.at[0].set(1.0)  # noqa: E501")
    # a finding whose first line ends inside a string: the comment goes on its last line
    src += "\n\ndef h(n):\n    z = jnp.zeros(n)\n    z.at[0].set(float('''\n    1.5'''))\n"
    p = tmp_path / "m.py"
    p.write_bytes(b"\xef\xbb\xbf" + src.replace("\n", "\r\n").encode())
    r = cli("lint", "--no-config", "--add-noqa", str(p))
    assert r.returncode == 0, r.stderr
    data = p.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    text = data[3:].decode().replace("\r\n", "\n")
    assert "    y.at[0].set(1.0)  # noqa: E501, JS603\n" in text
    assert "    z.at[0].set(float('''\n    1.5'''))  # noqa: JS603\n" in text  # on the finding's last line
    assert cli("lint", "--no-config", str(p)).returncode == 0


def test_add_noqa_bad_combinations_and_unwritable_files(cli, tmp_path):
    p = write(tmp_path / "m.py", SRC)
    assert "--add-noqa" in one_usage_line(cli("lint", "--add-noqa", "--fix", str(p)))
    assert "--add-noqa" in one_usage_line(cli("lint", "--add-noqa", "--diff", str(p)))
    p.chmod(0o444)
    try:
        r = cli("lint", "--no-config", "--add-noqa", str(p))
        assert r.returncode == 1
        assert r.stderr.strip() == f"jitscope: {p}: noqa comments not written: file is read-only"
        assert p.read_text() == SRC
    finally:
        p.chmod(0o644)


# -- per-file-ignores ----------------------------------------------------------------------------

def test_per_file_ignores_inline_table_from_the_cli(cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.jitscope]\nper-file-ignores = {"tests/*" = ["JS1", "JS603"]}\n')
    write(tmp_path / "tests" / "t.py", SRC)
    write(tmp_path / "pkg" / "m.py", SRC)
    r = cli("lint", "--statistics", "--output-format", "json", ".", cwd=tmp_path)
    assert {s["code"]: s["count"] for s in json.loads(r.stdout)} == {"JS101": 1, "JS201": 2, "JS206": 2,
                                                                     "JS603": 1}
    github = cli("lint", "--output-format", "github", ".", cwd=tmp_path).stdout
    got = set(re.findall(r"file=\./(\w+)/\w+\.py,.*?title=(JS\d+)", github))
    assert got == {("pkg", "JS101"), ("pkg", "JS201"), ("pkg", "JS206"), ("pkg", "JS603"), ("tests", "JS201"),
                   ("tests", "JS206")}


@pytest.mark.parametrize("body, expected", [
    ('per-file-ignores = {"tests/*" = ["JS999"]}', "unknown rule code or prefix 'JS999'"),
    ('per-file-ignores = {"tests/*" = [1]}', "per-file-ignores 'tests/*' must be a list of rule codes"),
    ('per-file-ignores = ["tests/*"]', "'per-file-ignores' must be a table of glob = [codes]"),
])
def test_bad_per_file_ignores_is_one_line_exit_2(cli, tmp_path, body, expected):
    write(tmp_path / "pyproject.toml", f"[tool.jitscope]\n{body}\n")
    write(tmp_path / "m.py", SRC)
    line = one_usage_line(cli("lint", "m.py", cwd=tmp_path))
    assert expected in line and "pyproject.toml" in line


def test_docs_mention_the_conventions():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    doc = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    for flag in ("--statistics", "--output-format github", "--add-noqa", "per-file-ignores"):
        assert flag in doc and flag in readme, flag
    assert "problemMatcher" in doc and "SARIF" in doc
