"""`jitscope lint` and `jitscope.lint`: exit codes, noqa, select/ignore, config, fixes, formats, parallel runs."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import jitscope
from jitscope.errors import UsageError
from jitscope.lint import lint_source
from jitscope.results import load_result
from jitscope.results.lint import LintResult
from jitscope.schema import validate

ROOT = Path(__file__).resolve().parent.parent
BAD = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x: jax.Array):
        if x > 0:
            return sum(x)
        return x
""")
GOOD = "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef f(x):\n    return jnp.where(x > 0, jnp.sum(x), x)\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def codes(result_or_findings) -> list[str]:
    findings = getattr(result_or_findings, "findings", result_or_findings)
    return [f.code for f in findings]


# -- exit codes and output -------------------------------------------------------------------------

def test_exit_codes(cli, tmp_path):
    bad = write(tmp_path, "bad.py", BAD)
    good = write(tmp_path, "good.py", GOOD)
    r = cli("lint", str(good))
    assert r.returncode == 0, r.stderr
    assert "All checks passed" in r.stdout
    r = cli("lint", str(bad))
    assert r.returncode == 1
    assert f"{bad}:7:8: JS101" in r.stdout
    assert "    if x > 0:" in r.stdout and "^^^^^" in r.stdout
    assert f"{bad}:8:16: JS201 [warning, likely] builtin" in r.stdout  # no [*]: the JS201 fix is unsafe
    r = cli("lint", str(tmp_path / "missing.py"))
    assert r.returncode == 2 and r.stderr.strip().endswith("no such file or directory")
    assert "Traceback" not in r.stderr
    r = cli("lint", "--select", "JS999", str(good))
    assert r.returncode == 2 and "unknown rule code" in r.stderr
    r = cli("lint", "--exit-zero", str(bad))
    assert r.returncode == 0 and "JS101" in r.stdout
    r = cli("lint", "--jobs", "0", str(good))
    assert r.returncode == 2


def test_lint_does_not_import_jax(tmp_path):
    bad = write(tmp_path, "bad.py", BAD)
    code = f"import sys, jitscope; r = jitscope.lint([{str(bad)!r}]); assert r.findings; print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_syntax_error_and_undecodable_are_one_finding_each(tmp_path):
    write(tmp_path, "a_broken.py", "def f(:\n    pass\n")
    (tmp_path / "b_latin1.py").write_bytes(b"x = '\xe9'\n")
    write(tmp_path, "c_bad.py", BAD)
    result = jitscope.lint([str(tmp_path)], config=False)
    assert result.files_checked == 3
    by_file = {Path(f.location.file).name: f.code for f in result.findings if f.code.startswith("JS0")}
    assert by_file == {"a_broken.py": "JS001", "b_latin1.py": "JS002"}
    assert sorted(codes(result)) == ["JS001", "JS002", "JS101", "JS201"]


def test_crash_prone_syntax_does_not_crash():
    src = textwrap.dedent("""\
        import jax
        from functools import partial

        def f(*, b=1, c):
            return b + c

        @(lambda fn: fn)
        @partial(jax.jit, static_argnums=(0,))[0] if False else jax.jit
        async def g(x, /, y=2, *args, z, **kw):
            async for i in x:
                await i
            async with y as (a, b):
                pass
            if (n := x.sum()) > 0:
                pass
            match x:
                case [1, *rest] if rest:
                    pass
                case {"k": v, **other}:
                    pass
                case Point(x=0) | None:
                    pass
            return [v async for v in x]

        @jax.jit
        def h(x, *, k=lambda q: q):
            def inner(*a, **k): return a
            global G
            del G
            nonlocal_free = [lambda: x for _ in range(3)]
            x[...] = 1
            return f"{x!r:>{10}}" + inner(*x)[0]

        @jax.jit(static_argnums=[])
        def e(x): return x
        class C(jax.jit(lambda s: s)): pass
        jax.jit()
        jax.jit(*[f])
        jax.lax.scan()
        jax.lax.switch(0)
    """)
    findings = lint_source(src, "weird.py")
    assert all(f.code != "JS001" for f in findings)


def test_noqa(tmp_path):
    src = BAD.replace("if x > 0:", "if x > 0:  # noqa: JS101").replace("return sum(x)", "return sum(x)  # noqa")
    assert codes(lint_source(src)) == []
    src = BAD.replace("if x > 0:", "if x > 0:  # noqa: JS102")
    assert codes(lint_source(src)) == ["JS101", "JS201"]
    src = BAD.replace("if x > 0:", "if x > 0:  # NOQA:JS201,JS101")
    assert codes(lint_source(src)) == ["JS201"]


def test_select_and_ignore_prefixes():
    assert codes(lint_source(BAD, select=["JS1"])) == ["JS101"]
    assert codes(lint_source(BAD, select=["JS2"])) == ["JS201"]
    assert codes(lint_source(BAD, ignore=["JS20"])) == ["JS101"]
    assert codes(lint_source(BAD, select=["JS1"], ignore=["JS101"])) == []
    assert codes(lint_source(BAD, select=["JS101", "JS2"], ignore=["JS1"])) == ["JS101", "JS201"]  # longer wins
    with pytest.raises(UsageError):
        lint_source(BAD, select=["XX1"])


# -- configuration -----------------------------------------------------------------------------------

def test_config_select_ignore_per_file(tmp_path):
    write(tmp_path, "pyproject.toml", textwrap.dedent("""\
        [project]
        name = "demo"

        [tool.jitscope]
        ignore = ["JS201"]

        [tool.jitscope.per-file-ignores]
        "pkg/legacy_*.py" = ["JS1"]
    """))
    write(tmp_path, "pkg/mod.py", BAD)
    write(tmp_path, "pkg/legacy_mod.py", BAD)
    result = jitscope.lint([str(tmp_path / "pkg")])
    assert result.config == str(tmp_path / "pyproject.toml")
    got = {(Path(f.location.file).name, f.code) for f in result.findings}
    assert got == {("mod.py", "JS101")}
    assert codes(jitscope.lint([str(tmp_path / "pkg" / "mod.py")], config=False)) == ["JS101", "JS201"]
    # the command line adds to the configuration's ignore and replaces its select
    assert codes(jitscope.lint([str(tmp_path / "pkg" / "mod.py")], select=["JS2"])) == []


@pytest.mark.parametrize("body, message", [
    ('[tool.jitscope]\nselectt = ["JS1"]\n', "unknown key"),
    ('[tool.jitscope]\nselect = ["JS9"]\n', "unknown rule code"),
    ('[tool.jitscope]\nselect = "JS1\n', "cannot read config"),
    ('[tool.jitscope]\nignore = [1]\n', "must be a list of rule codes"),
])
def test_bad_config_is_usage_error(cli, tmp_path, body, message):
    write(tmp_path, "pyproject.toml", body)
    write(tmp_path, "m.py", GOOD)
    r = cli("lint", str(tmp_path / "m.py"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr
    assert cli("lint", "--no-config", str(tmp_path / "m.py")).returncode == 0


# -- fixes -------------------------------------------------------------------------------------------

def test_fix_applies_only_allowed_fixes(cli, tmp_path):
    # No rule offers a safe fix today (JS201's sum -> jnp.sum changes dtypes, see test_lint_truth), so the
    # fix machinery is exercised through the unsafe path; `--fix` alone must change nothing and say why.
    src = BAD + "\n\ndef g(n):\n    a = jnp.zeros(n)\n    a[0] = 1.0\n    return a\n"
    p = write(tmp_path, "m.py", src)
    r = cli("lint", "--diff", str(p))
    assert r.returncode == 0 and r.stdout == ""  # nothing safe to show
    r = cli("lint", "--fix", str(p))
    assert r.returncode == 1
    assert p.read_text() == src
    assert "Fixed" not in r.stdout
    assert "No safe fixes; 2 unsafe fixes available with `--fix --unsafe-fixes`" in r.stdout
    r = cli("lint", "--diff", "--unsafe-fixes", str(p))
    assert r.returncode == 1
    assert "-        return sum(x)\n+        return jnp.sum(x, axis=0)" in r.stdout
    assert "+    a = a.at[0].set(1.0)" in r.stdout
    assert p.read_text() == src  # --diff writes nothing
    r = cli("lint", "--fix", "--unsafe-fixes", str(p))
    assert "Fixed 2 findings" in r.stdout
    fixed = p.read_text()
    assert "return jnp.sum(x, axis=0)" in fixed and "a = a.at[0].set(1.0)" in fixed
    assert codes(jitscope.lint([str(p)])) == ["JS101"]


def test_safe_and_unsafe_fix_selection():
    from jitscope.lint.fixes import apply_fixes, fixes_for
    from jitscope.model import Finding, Fix, Location

    def finding(safety, col, repl):
        fx = Fix("t", safety=safety, replacement=repl, location=Location("m.py", 1, col, None, 1, col + 1))
        return Finding("JS999", "m", "warning", Location("m.py", 1, col), "n", fx)

    found = [finding("safe", 1, "A"), finding("unsafe", 3, "B")]
    assert [f.replacement for f in fixes_for(found, ("safe",))] == ["A"]
    assert apply_fixes("a=b\n", fixes_for(found, ("safe",))) == ("A=b\n", 1)
    assert apply_fixes("a=b\n", fixes_for(found, ("safe", "unsafe"))) == ("A=B\n", 2)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_unsafe_fixes_keep_values_under_real_jax(tmp_path):
    original = ROOT / "tests" / "fixtures" / "lint_fix_cases.py"
    fixed_path = tmp_path / "lint_fix_cases_fixed.py"
    shutil.copy(original, fixed_path)
    assert jitscope.lint([str(fixed_path)], fix=True).fixes_applied == 0  # the sum fix is unsafe
    result = jitscope.lint([str(fixed_path)], fix=True, unsafe_fixes=True)
    assert result.fixes_applied == 4
    assert codes(result) == []
    fixed_src = fixed_path.read_text()
    assert "sum(" in fixed_src and " sum(" not in fixed_src.replace("jnp.sum(", "")
    before, after = _load(original, "lint_fix_before"), _load(fixed_path, "lint_fix_after")
    for name, make_args in before.CASES.items():
        want, got = getattr(before, name)(*make_args()), getattr(after, name)(*make_args())
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, err_msg=name)


def test_fix_never_writes_unparsable(tmp_path):
    from jitscope.lint.fixes import apply_fixes
    from jitscope.model import Fix, Location

    text = "x = 1\n"
    bad = Fix("break it", safety="safe", replacement="(", location=Location("m.py", 1, 1, None, 1, 2))
    assert apply_fixes(text, [bad]) == (text, 0)


# -- results and formats -----------------------------------------------------------------------------

def test_json_result_schema_and_round_trip(cli, tmp_path):
    p = write(tmp_path, "m.py", BAD)
    out = tmp_path / "out" / "lint.json"
    r = cli("lint", "--format", "json", "--json", str(out), str(p))
    assert r.returncode == 1
    data = json.loads(r.stdout)
    validate(data)
    assert data["kind"] == "lint" and data["files_checked"] == 1 and data["lines_checked"] == 9
    assert [f["code"] for f in data["findings"]] == ["JS101", "JS201"]
    assert data["env"]["jax"] == ""  # lint never imports jax
    loaded = load_result(out)
    assert isinstance(loaded, LintResult)
    assert loaded.to_dict() == LintResult.from_dict(data).to_dict()
    import io

    from jitscope.render import render

    buf = io.StringIO()
    buf.write(render(loaded, "console", width=200))
    assert f"{p}:7:8: JS101" in buf.getvalue() and "    if x > 0:" in buf.getvalue()


def test_output_file_and_no_snippet(cli, tmp_path):
    p = write(tmp_path, "m.py", BAD)
    out = tmp_path / "report.txt"
    r = cli("lint", "--no-snippet", "-o", str(out), str(p))
    assert r.returncode == 1 and r.stdout == ""
    lines = out.read_text().splitlines()
    assert lines[0].startswith(f"{p}:7:8: JS101") and lines[1].startswith(f"{p}:8:16: JS201")
    r = cli("lint", "-o", str(tmp_path / "new" / "dir" / "r.txt"), str(p))  # parents are created
    assert r.returncode == 1 and (tmp_path / "new" / "dir" / "r.txt").read_text().startswith(str(p))
    r = cli("lint", "-o", str(p / "r.txt"), str(p))  # under a regular file: cannot be written
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("lint", str(empty))
    assert r.returncode == 0 and "All checks passed (0 files" in r.stdout


def test_parallel_equals_serial(cli, tmp_path):
    for i in range(40):
        write(tmp_path, f"m{i:02d}.py", BAD if i % 3 else GOOD)
    write(tmp_path, "broken.py", "def (:\n")
    serial = jitscope.lint([str(tmp_path)], jobs=1)
    # in a subprocess that never imports JAX, so the workers really are forked processes
    r = cli("lint", "--format", "json", "-j", "2", str(tmp_path))
    parallel = LintResult.from_dict(json.loads(r.stdout))
    assert serial.files_checked == parallel.files_checked == 41 and parallel.jobs == 2
    key = sorted((f.location.file, f.location.line, f.code) for f in serial.findings)
    assert key == sorted((f.location.file, f.location.line, f.code) for f in parallel.findings)
    assert len(key) == 1 + 2 * 26


def test_parallel_workers_run(tmp_path):
    code = ("import sys\n"
            "from concurrent.futures import ProcessPoolExecutor as P\n"
            "calls = []\n"
            "orig = P.submit\n"
            "P.submit = lambda self, *a, **k: calls.append(1) or orig(self, *a, **k)\n"
            f"res = __import__('jitscope').lint([{str(tmp_path)!r}], jobs=2)\n"
            "assert 'jax' not in sys.modules and calls, calls\n"
            "print(res.files_checked)\n")
    for i in range(30):
        write(tmp_path, f"m{i}.py", BAD)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "30"


def test_pre_commit_hooks_file():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: jitscope-lint" in text and "entry: jitscope lint" in text
    assert "language: python" in text and "types: [python]" in text


# -- rules command -----------------------------------------------------------------------------------

def test_rules_command(cli):
    r = cli("rules")
    assert r.returncode == 0
    assert "JS101" in r.stdout and "traced-control-flow" in r.stdout and "safe" in r.stdout
    r = cli("rules", "js201")
    assert r.returncode == 0 and r.stdout.startswith("JS201 builtin-reduction")
    assert "## Why is this bad?" in r.stdout and "## Fix safety" in r.stdout
    r = cli("rules", "JS999")
    assert r.returncode == 2 and "unknown rule code" in r.stderr


def test_docs_rules_md_in_sync():
    from jitscope.lint.docs import rules_markdown

    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_markdown(), \
        "docs/rules.md is stale: run `jitscope rules --markdown > docs/rules.md`"


def test_config_flag_extend_select_and_exclude(cli, tmp_path):
    cfg = write(tmp_path, "conf/pyproject.toml", textwrap.dedent("""\
        [tool.jitscope]
        select = ["JS1"]
        extend-select = ["JS201"]
        exclude = ["skip_*.py"]
    """))
    write(tmp_path, "code/m.py", BAD)
    write(tmp_path, "code/skip_me.py", BAD)
    r = cli("lint", "--no-snippet", "--config", str(cfg), str(tmp_path / "code"))
    assert r.returncode == 1
    assert "m.py:7:8: JS101" in r.stdout and "m.py:8:16: JS201" in r.stdout and "skip_me" not in r.stdout
    # without --config the file is not found (it is not above code/): every rule runs on both files
    r = cli("lint", "--no-snippet", str(tmp_path / "code"))
    assert "skip_me.py:7:8: JS101" in r.stdout
    r = cli("lint", "--config", str(tmp_path / "nope.toml"), str(tmp_path / "code"))
    assert r.returncode == 2 and "no such config file" in r.stderr
    r = cli("lint", "--config", str(cfg), "--no-config", str(tmp_path / "code"))
    assert r.returncode == 2


def test_jobs_flag(cli, tmp_path):
    for i in range(30):
        write(tmp_path, f"m{i}.py", BAD)
    r = cli("lint", "--no-snippet", "-j", "2", "--format", "json", str(tmp_path))
    data = json.loads(r.stdout)
    assert data["jobs"] == 2 and data["files_checked"] == 30 and len(data["findings"]) == 60


def test_fix_keeps_crlf_and_counts_lines_like_python(tmp_path):
    p = tmp_path / "crlf.py"
    p.write_bytes(b"import jax\r\nimport jax.numpy as jnp\r\n# \x0c form feed\r\n@jax.jit\r\ndef f(x: jax.Array):\r\n"
                  b"    if x > 0:\r\n        return sum(x)\r\n    return x\r\n")
    before = jitscope.lint([str(p)])
    assert [(f.location.line, f.code) for f in before.findings] == [(6, "JS101"), (7, "JS201")]
    assert before.findings[1].details["source"] == "        return sum(x)"
    jitscope.lint([str(p)], fix=True, unsafe_fixes=True)
    assert b"        return jnp.sum(x, axis=0)\r\n" in p.read_bytes()


SEEDS = {
    # seed 000: g calls f 100 times in a Python loop, under jit(g)
    "000": ("import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return x * 2 + jnp.sin(x)\n\n@jax.jit\n"
            "def g(x):\n    y = x\n    for _ in range(100):\n        y = f(y)\n    return jnp.mean(y) + jnp.sum(x)\n",
            ["JS202"]),
    # seed 002: print, global list append, jit(lambda) in a loop, stale global, `if` on a tracer
    "002": ("import jax\nimport jax.numpy as jnp\n\ng = 0.0\nseen = []\n\n@jax.jit\ndef f(x):\n    print('tracing', x)\n"
            "    seen.append(x)\n    if x.sum() > 0:\n        return x + g\n    return x\n\n"
            "def loop(xs):\n    for x in xs:\n        jax.jit(lambda v: v * 2)(x)\n\nf(jnp.ones(3))\ng = 10.0\n",
            ["JS401", "JS403", "JS101", "JS502", "JS203"]),
    # seed 003: builtin sum over an array inside jit (compile time grows with N)
    "003": ("import jax\nimport jax.numpy as jnp\nfrom jax.scipy.stats.norm import pdf\n\n@jax.jit\n"
            "def integrate(mu, grid):\n    return sum(pdf(grid) * pdf(grid - mu)) * 0.01\n",
            ["JS201"]),
    # seed 004: boolean-mask indexing needs concrete indices
    "004": ("import jax\n\n@jax.jit\ndef negatives(x):\n    return x[x < 0]\n", ["JS301"]),
}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seed_pitfalls_are_flagged(seed):
    src, expected = SEEDS[seed]
    assert sorted(codes(lint_source(src, f"seed{seed}.py"))) == sorted(expected)


@pytest.mark.parametrize("src, fixed", [
    # `jnp` imported only inside another function: not bound at the fix site
    ("import jax\n\ndef helper():\n    import jax.numpy as jnp\n    return jnp.zeros(3)\n\n"
     "@jax.jit\ndef f(x: jax.Array):\n    return sum(x)\n", None),
    # module-level alias shadowed by a local
    ("import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef g(x: jax.Array):\n    jnp = 3\n    return sum(x) + jnp\n", None),
    ("import jax\nfrom jax import numpy as np\n\n@jax.jit\ndef f(xs: jax.Array):\n    return sum(xs)\n", "np.sum(xs, axis=0)"),
])
def test_fix_uses_only_aliases_bound_at_the_fix_site(src, fixed):
    (f,) = lint_source(src, select=["JS201"])
    assert (f.fix.replacement if f.fix else None) == fixed


def test_js104_fix_needs_module_level_jnp():
    src = ("import jax\nimport numpy as np\n\ndef helper():\n    import jax.numpy as jnp\n    return jnp\n\n"
           "@jax.jit\ndef f(x):\n    return np.sin(x)\n")
    (f,) = lint_source(src, select=["JS104"])
    assert f.fix is None
    (f,) = lint_source("import jax.numpy as jnp\n" + src, select=["JS104"])
    assert f.fix.replacement == "jnp.sin"


def test_js202_unknown_trip_count_is_info_without_shape_claim():
    src = ("import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef layers(x, ws):\n    for w in ws:\n"
           "        x = jnp.tanh(x @ w)\n    return x\n")
    (f,) = lint_source(src, select=["JS202"])
    assert f.severity == "info" and "shape" not in f.message and "unknown" in f.message
    # ws[0] is no evidence (a list of weights is indexed too); a slice is
    (f,) = lint_source(src.replace("for w in ws:", "for w in ws:\n        x = x + ws[:, 0]"), select=["JS202"])
    assert f.severity == "info" and "ws.shape[0] iterations" in f.message  # a shape-set count: advice (cost)


def test_js202_nested_shape_loops_report_product():
    src = ("import jax\n\n@jax.jit\ndef f(x):\n    acc = 0.0\n    for i in range(x.shape[0]):\n"
           "        for j in range(x.shape[1]):\n            acc = acc + x[i, j]\n    return acc\n")
    (f,) = lint_source(src, select=["JS202"])
    assert f.location.line == 6 and "x.shape[0] * x.shape[1] iterations" in f.message
