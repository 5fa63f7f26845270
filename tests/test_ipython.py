"""`%load_ext jitscope` and the `%%jitscope` cell magic on a real IPython shell."""

from __future__ import annotations

import pytest

IPython = pytest.importorskip("IPython")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    yield sh
    InteractiveShell.clear_instance()


def test_cell_magic_watches_the_cell_and_prints_the_summary(shell, capsys):
    shell.run_line_magic("load_ext", "jitscope")
    shell.run_cell("import jax, jax.numpy as jnp\nf = jax.jit(lambda x: x * 2)")
    capsys.readouterr()
    shell.run_cell_magic("jitscope", "", "f(jnp.ones(3))\nf(jnp.ones(4))\nf(jnp.ones(4))\n")
    out = " ".join(capsys.readouterr().out.split())  # undo the console's line wrapping
    assert "2 compiles of your jitted functions" in out and "Compiles per function" in out
    assert "shape_change" in out and "f32[3] -> f32[4]" in out
    result = shell.user_ns["_jitscope"]
    assert [e.reason.category for e in result.events] == ["first_compile", "shape_change"]
    assert result.program == "%%jitscope cell"


def test_cell_magic_fail_on_recompile_and_bad_options(shell):
    from jitscope import RecompileError, UsageError
    from jitscope.ipython import jitscope_cell_magic

    shell.run_cell("import jax, jax.numpy as jnp\ng = jax.jit(lambda x: x + 2)")
    with pytest.raises(RecompileError, match="recompile #1"):
        jitscope_cell_magic(shell, "--fail-on-recompile --no-explain", "g(jnp.ones(1))\ng(jnp.ones(2))")
    with pytest.raises(UsageError, match="bad options"):
        jitscope_cell_magic(shell, "--bogus", "pass")


def test_cell_magic_writes_its_summary_as_one_output(shell, monkeypatch):
    """A notebook shows each write of the magic as its own output: the summary is one write."""
    import io
    import sys

    class Counting(io.StringIO):
        writes = 0

        def write(self, s):
            Counting.writes += 1
            return super().write(s)

    shell.run_line_magic("load_ext", "jitscope")
    shell.run_cell("import jax, jax.numpy as jnp\nh = jax.jit(lambda x: x * 3)")
    out = Counting()
    monkeypatch.setattr(sys, "stdout", out)
    shell.run_cell_magic("jitscope", "", "y = h(jnp.ones(3))\ny = h(jnp.ones(5))\n")  # the cell prints nothing
    assert Counting.writes == 1 and "Compiles per function" in out.getvalue()
