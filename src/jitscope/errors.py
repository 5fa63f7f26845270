"""User-facing errors: one line, an exit code, no traceback.

Anything raised as a ``JitscopeError`` is shown by the CLI as ``jitscope: <message>``
and exits with ``exit_code``. Any other exception is a bug in jitscope.
"""

from __future__ import annotations

# Exit codes, documented in README ("Exit codes").
EXIT_OK = 0
EXIT_FINDINGS = 1  # lint findings, a traced function that failed, a variant that failed
EXIT_USAGE = 2  # bad arguments, unknown module/function, unparsable arg spec
EXIT_BUDGET = 3  # watch: --max-compiles / --fail-on-recompile exceeded


class JitscopeError(Exception):
    """An error caused by the user's input or program, reported in one line."""

    exit_code = EXIT_FINDINGS


class UsageError(JitscopeError):
    """Bad command-line input: unknown target, bad arg spec, bad option value."""

    exit_code = EXIT_USAGE
