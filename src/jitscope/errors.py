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


def renamed_keywords(**old_to_new: str):  # noqa: ANN201 - a decorator
    """Keep a public function's old keyword spellings working: ``@renamed_keywords(budget_s="sample_seconds")``
    passes ``budget_s=`` on as ``sample_seconds=`` with a ``DeprecationWarning`` (one line naming both, at
    the caller's line). Both spellings at once is a ``TypeError``, as a duplicate keyword is. The table of
    names is docs/cli.md ("Names")."""
    import functools
    import warnings

    def wrap(fn):  # noqa: ANN001, ANN202
        @functools.wraps(fn)
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {old}= and its new name {new}=")
                    warnings.warn(f"jitscope.{fn.__name__}: {old}= is deprecated; use {new}=",
                                  DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return call

    return wrap
