"""The CLI's start-up runs with the cyclic garbage collector paused (``cli._Startup``), and leaves it as it was.

Each check runs in a fresh interpreter: the counts are of collections the start-up itself caused. Counts, never
times (docs/architecture.md, "What a command imports"; the time is measured by benchmarks/lint_small_file.py).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SMALL = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def _run(code: str, *args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


# Counts the collections that start between main()'s entry and the lint command's own start (the parser, the
# lint engine, its rules and the jaxmodel tables imported: most objects a start-up makes), then lints one file.
COUNTING = """
    import contextlib, gc, io, sys
    import jitscope.cli.lint as command
    from jitscope.cli import main
    state = {{"counting": False, "during": 0}}
    def count(phase, info):
        if phase == "start" and state["counting"]:
            state["during"] += 1
    gc.callbacks.append(count)
    run = command.run
    def started(args):
        state["counting"] = False
        return run(args)
    command.run = started
    {before}
    state["counting"] = True
    with contextlib.redirect_stdout(io.StringIO()):
        {call}
    print(state["during"], gc.isenabled(), gc.get_freeze_count() > 0)
"""


def test_no_collection_while_lint_imports_its_engine(tmp_path):
    # Before the pause, ~15 young collections ran while `jitscope lint` imported its engine (each scanning the
    # modules, classes and functions just made, all of them alive until the process ends).
    small = tmp_path / "small.py"
    small.write_text(SMALL)
    code = COUNTING.format(before="", call='main(["lint", "--no-config", "--exit-zero", sys.argv[1]])')
    assert _run(code, str(small)) == ["0 True False"]  # and, with argv given, nothing frozen


def test_the_process_entry_freezes_what_start_up_made(tmp_path):
    small = tmp_path / "small.py"
    small.write_text(SMALL)
    code = COUNTING.format(before='sys.argv = ["jitscope", "lint", "--no-config", "--exit-zero", sys.argv[1]]',
                           call="main()")
    assert _run(code, str(small)) == ["0 True True"]


def test_a_caller_that_paused_the_collector_keeps_it_paused(tmp_path):
    small = tmp_path / "small.py"
    small.write_text(SMALL)
    code = COUNTING.format(before="gc.disable()", call='main(["lint", "--no-config", "--exit-zero", sys.argv[1]])')
    assert _run(code, str(small)) == ["0 False False"]


def test_the_collector_resumes_after_a_usage_error_and_after_help(tmp_path):
    code = """
        import contextlib, gc, io
        from jitscope.cli import main
        for argv in (["lint", "--no-such-option"], ["--help"], ["lint", "--config", "/no/such/pyproject.toml"], []):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    main(argv)
                except SystemExit:
                    pass
            print(gc.isenabled())
    """
    assert _run(code) == ["True"] * 4


def test_lint_per_file_state_compares_by_identity():
    # ModuleInfo, Frame, the call graph's index and the runner's FileOutcome are per-file state, never compared or printed field by field;
    # a generated __eq__/__repr__ over their 24-36 fields cost ~2.5 ms of each lint process's start-up to create.
    code = """
        import ast
        from jitscope.lint.context import Frame
        from jitscope.lint.scope import ModuleInfo
        tree = ast.parse("import jax\\n@jax.jit\\ndef f(x):\\n    return x\\n")
        a, b = ModuleInfo.collect(tree), ModuleInfo.collect(tree)
        print(a == b, a == a, Frame(None, "<module>") == Frame(None, "<module>"), "0x" in repr(a))
        # and the runner's record of one file's lint (14 fields; ~0.4 ms)
        from jitscope.lint.runner import FileOutcome
        print(FileOutcome("a.py") == FileOutcome("a.py"), "0x" in repr(FileOutcome("a.py")))
    """
    assert _run(code) == ["False True False True", "False True"]
