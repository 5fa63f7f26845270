"""``import jitscope`` is lazy (PEP 562): a public name is imported when first used, and the CLI imports only the
command it runs. Each check runs in a fresh interpreter: what an earlier test imported must not hide a fault."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_jitscope_imports_none_of_its_modules():
    code = "import sys, jitscope; print(sorted(m for m in sys.modules if m.startswith('jitscope')))"
    assert _run(code) == "['jitscope']"


@pytest.mark.parametrize("first", ["jitscope.lint.engine", "jitscope.lint", "jitscope._lint", "jitscope.lint.rules"])
def test_jitscope_lint_stays_the_function_whichever_module_is_imported_first(first):
    # The function jitscope.lint shares its name with the subpackage jitscope.lint (the rules); importing the
    # subpackage binds it on the package, which made `jitscope.lint` a module when nothing had asked for the
    # function yet (the suite's failures with the first lazy import: collection imports test modules in order).
    code = f"""
        import {first}
        import jitscope
        from jitscope import lint
        from jitscope.lint import rules
        print(callable(jitscope.lint), lint is jitscope.lint, lint.__module__, rules.__name__)
    """
    assert _run(code) == "True True jitscope._lint jitscope.lint.rules"


def test_every_public_name_is_its_modules_object():
    code = """
        import importlib, jitscope
        wrong = [n for n, (mod, attr) in jitscope._PUBLIC.items()
                 if getattr(jitscope, n) is not getattr(importlib.import_module(mod, "jitscope"), attr)]
        print(wrong, set(jitscope.__all__) <= set(dir(jitscope)))
        ns = {}
        exec("from jitscope import *", ns)
        print(sorted(set(jitscope.__all__) - set(ns)))
        print(jitscope.collect.__name__, jitscope._watch.__name__, hasattr(jitscope, "no_such_name"))
    """
    assert _run(code).splitlines() == ["[] True", "[]", "jitscope.collect jitscope._watch False"]


def _small(tmp_path):
    small = tmp_path / "small.py"
    small.write_text("import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    return small


def _modules_after_linting_one_file(tmp_path, which: str) -> str:
    """What ``print(sorted(m for m in sys.modules if WHICH))`` prints after `jitscope lint` of a small file."""
    small = _small(tmp_path)
    code = f"""
        import contextlib, io, sys
        from jitscope.cli import main
        with contextlib.redirect_stdout(io.StringIO()) as out:
            code = main(["lint", "--no-config", "--exit-zero", {str(small)!r}])
        assert code == 0 and "JS101" in out.getvalue(), out.getvalue()
        print(sorted(m for m in sys.modules if {which}))
    """
    return _run(code)


def test_the_lint_command_imports_only_what_linting_needs(tmp_path):
    which = ('m.split(".")[0] in ("jax", "rich", "numpy") or m.startswith(("jitscope.cli.", "jitscope._watch", '
             '"jitscope._inspect", "jitscope.collect", "jitscope.analyze", "jitscope.render.html"))')
    assert _modules_after_linting_one_file(tmp_path, which) == \
        "['jitscope.cli._common', 'jitscope.cli._outputs', 'jitscope.cli.lint']"


def test_linting_one_file_creates_no_compile_event_record(tmp_path):
    # LeafSpec, ArgSignature, Timing, Reason, CompileEvent and the persistent-cache records: seven dataclasses
    # lint never makes, in compile_records.py, which jitscope.model imports when one is first asked for
    which = 'm in ("jitscope.compile_records", "jitscope.model", "jitscope.records")'
    assert _modules_after_linting_one_file(tmp_path, which) == "['jitscope.model', 'jitscope.records']"


def test_linting_one_file_without_evidence_creates_no_trace_evidence_record(tmp_path):
    # TracedParameter, TracedFunction, TraceEvidence: read only with evidence (lint/evidence.py's load), in
    # trace_records.py, which jitscope.model and jitscope.records import when one is first asked for
    which = ('m == "jitscope.trace_records" or any(getattr(v, "__name__", "") in ("TraceEvidence", "TracedFunction", '
             '"TracedParameter") and v.__module__ == m for v in list(vars(sys.modules[m]).values()))')
    assert _modules_after_linting_one_file(tmp_path, which) == "[]"


def test_the_trace_evidence_records_are_still_where_they_were():
    code = """
        import sys, jitscope, jitscope.model as model
        print("jitscope.trace_records" in sys.modules)
        from jitscope.model import TraceEvidence, TracedFunction, TracedParameter, TraceKind
        from jitscope import trace_records
        print(TraceEvidence is trace_records.TraceEvidence, TraceKind is trace_records.TraceKind,
              TracedFunction is trace_records.TracedFunction, TracedParameter is model.TracedParameter)
        e = TraceEvidence([TracedFunction("m", "f", "m.py", 3, [TracedParameter("x", "abstract", (".w",))])])
        print(TraceEvidence.from_dict(e.to_dict()) == e, "TraceEvidence" in dir(model))
    """
    assert _run(code).splitlines() == ["False", "True True True True", "True True"]


def test_model_still_gives_every_record_where_it_was():
    code = """
        import sys, jitscope, jitscope.model as model
        print("jitscope.compile_records" in sys.modules)
        from jitscope.model import CompileEvent, Finding, LeafSpec, NOT_WRITTEN, sharding_text
        from jitscope import compile_records, records
        print(CompileEvent is compile_records.CompileEvent is jitscope.CompileEvent, Finding is records.Finding,
              LeafSpec.__module__, sharding_text is compile_records.sharding_text, NOT_WRITTEN[0])
        print(all(n in dir(model) for n in ("Timing", "Reason", "Location", "Environment")))
        try:
            model.NoSuchRecord
        except AttributeError as e:
            print(e)
    """
    assert _run(code).splitlines() == [
        "False", "True True jitscope.compile_records True cache_disabled", "True",
        "module 'jitscope.model' has no attribute 'NoSuchRecord'"]


def test_linting_one_file_as_text_imports_no_module_it_does_not_use(tmp_path):
    # What one small file's lint spent beyond parsing (issue #25 item 5): `platform.platform()` for the
    # result's environment (it runs `uname -p` in a subprocess), json and the schema, the worker pool's
    # signal and threading. Text output shows no environment; the outputs that do capture it (next test).
    which = 'm in ("platform", "subprocess", "json", "threading", "signal", "jitscope.schema", "shutil", "pathlib")'
    assert _modules_after_linting_one_file(tmp_path, which) == "[]"


@pytest.mark.parametrize("how", [["--format", "json"], ["--json", "OUT"], ["--html", "OUT"]])
def test_the_outputs_that_show_the_environment_still_capture_it(tmp_path, how):
    import json
    import platform

    small = tmp_path / "small.py"
    small.write_text("import jax\n")
    out = tmp_path / "out"
    args = [str(out) if a == "OUT" else a for a in how]
    run = subprocess.run([sys.executable, "-m", "jitscope", "lint", "--no-config", *args, str(small)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    text = run.stdout if how[0] == "--format" else out.read_text()
    if how[0] == "--html":
        assert f"Python {platform.python_version()}" in text
    else:
        assert json.loads(text)["env"]["platform"] == platform.platform()


def test_help_still_lists_every_command():
    code = """
        import contextlib, io
        from jitscope.cli import COMMANDS, main
        with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):
            main(["--help"])
        print([c for c in COMMANDS if c not in out.getvalue()])
    """
    assert _run(code) == "[]"


@pytest.mark.parametrize("columns", ["40", "100"])
def test_help_is_still_wrapped_to_the_terminal(columns):
    # The parser's add_argument checks use a formatter of a fixed width (so that building the parser does not
    # import shutil); help itself must still wrap to the terminal's width (COLUMNS here).
    import os

    out = subprocess.run([sys.executable, "-m", "jitscope", "lint", "--help"], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "COLUMNS": columns})
    assert out.returncode == 0, out.stderr
    too_wide = [line for line in out.stdout.splitlines() if len(line) > int(columns) - 2]
    assert len(too_wide) <= 10, too_wide  # usage items and option names argparse cannot break (6 at 40 columns)


def test_linting_one_file_imports_no_module_only_fixes_rules_or_parse_failures_need(tmp_path):
    # pyversion (a file that fails to parse: its patterns compile at import), docs (`jitscope rules`), fixes and
    # write (--fix / --diff): none is asked for by a lint of a file that parses, so none is imported
    which = 'm in ("jitscope.lint.pyversion", "jitscope.lint.docs", "jitscope.lint.fixes", "jitscope.lint.write")'
    assert _modules_after_linting_one_file(tmp_path, which) == "[]"


def test_linting_one_file_imports_no_typing(tmp_path):
    # `typing` costs ~4 ms of CPU at import (issue #25 item 5): the lint path names its types under a module's
    # own `TYPE_CHECKING = False`, its Literal aliases are str at run time and its named tuples come from
    # collections; `_serde` imports typing when a saved result is loaded (next test)
    assert _modules_after_linting_one_file(tmp_path, 'm == "typing"') == "[]"


def test_a_lint_result_still_loads_with_its_records_rebuilt(tmp_path):
    code = f"""
        import contextlib, io, sys
        from jitscope.cli import main
        out = {str(tmp_path / "out.json")!r}
        with contextlib.redirect_stdout(io.StringIO()):
            main(["lint", "--no-config", "--exit-zero", "--json", out, {str(_small(tmp_path))!r}])
        print("typing" in sys.modules)
        from jitscope import load_result
        r = load_result(out)
        f = r.findings[0]
        print(type(r).__name__, type(f).__name__, type(f.location).__name__, f.code, f.severity, "typing" in sys.modules)
    """
    assert _run(code).splitlines() == ["False", "LintResult Finding Location JS101 error True"]


def test_linting_one_file_compiles_no_pattern_only_noqa_or_package_modules_need(tmp_path):
    # The noqa comments (lint/source.py) and the unknown callers of a package module's functions
    # (lint/unknown_callers.py), a module that turns x64 on (rules/_numeric.py) or makes Refs (JS603): a script
    # with none of them compiles none of their patterns
    # (a module whose pattern is compiled: a `re.Pattern`, or a LazyPattern that was used)
    which = ('(m, n) in (("jitscope.lint.source", "NOQA"), ("jitscope.lint.unknown_callers", "_DEMAND"), '
             '("jitscope.lint.unknown_callers", "_PLOTS"), ("jitscope.lint.unknown_callers", "_ASSIGN"), '
             '("jitscope.lint.unknown_callers", "_WORD"), ("jitscope.lint.rules._numeric", "_ENABLES_X64"), '
             '("jitscope.lint.rules.js603_discarded_at_update", "_REFS")) and (type(v).__name__ == "Pattern" or len(vars(v)) > 1)')
    which = f'[n for n, v in vars(sys.modules[m]).items() if {which}]'
    assert _modules_after_linting_one_file(tmp_path, which) == "[]"


def test_a_lazy_pattern_is_its_compiled_pattern():
    import re

    from jitscope.lint.source import NOQA, LazyPattern

    p = LazyPattern(r"(\w+)=(\d+)", re.ASCII)
    assert p.findall("a=1 b=22") == [("a", "1"), ("b", "22")] and p.match("x=3").group(2) == "3"
    q = re.compile(r"(\w+)=(\d+)", re.ASCII)
    assert p.search("--") is None and (p.pattern, p.flags) == (q.pattern, q.flags)
    assert NOQA.search("x = 1  # No" + "QA: js101, JS102").group("codes") == "js101, JS102"
