"""Run a Python program the way ``python script.py`` / ``python -m module`` would, in-process.

What is emulated: ``sys.argv`` (``argv[0]`` is the script path, or the module's file for
``-m``), ``__name__ == "__main__"``, ``sys.path[0]`` (the script's directory, or the current
directory for ``-m``), and the exit status:

* normal end -> 0; ``sys.exit(n)`` -> n (``sys.exit("msg")`` prints msg, -> 1; ``None`` -> 0);
* an uncaught exception -> its traceback on stderr (jitscope's and runpy's frames removed), 1;
* Ctrl-C (``KeyboardInterrupt``) -> traceback, 130. CPython itself re-raises SIGINT so the
  shell sees "killed by SIGINT", which shells report as 128 + 2 = 130; we return 130.

``sys.argv``, ``sys.path`` and ``sys.modules['__main__']`` are restored afterwards, so the
caller (the watch session) can still write its results.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from types import TracebackType

from ..errors import UsageError

EXIT_INTERRUPTED = 130


def _trim(tb: TracebackType | None) -> TracebackType | None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runpy_file = os.path.abspath(runpy.__file__ or "")
    while tb is not None:
        raw = tb.tb_frame.f_code.co_filename
        f = raw if raw.startswith("<") else os.path.abspath(raw)
        if f.startswith(here + os.sep) or f == runpy_file or f.startswith("<frozen runpy"):
            tb = tb.tb_next
        else:
            break
    return tb


def _print_exception(e: BaseException) -> None:
    e.__traceback__ = _trim(e.__traceback__)
    traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    sys.stderr.flush()


def _exit_code(e: SystemExit) -> int:
    code = e.code
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    print(code, file=sys.stderr)
    return 1


def check_target(target: str, module: bool) -> str:
    """Validate the program before any watching starts; returns the script path or module name."""
    if module:
        import importlib.util

        # ``python -m`` searches the current directory first; so does the run (run_program).
        saved = sys.path[:]
        sys.path.insert(0, os.getcwd())
        try:
            spec = importlib.util.find_spec(target)
        except (ImportError, ValueError) as e:
            raise UsageError(f"no module named '{target}' ({e})") from None
        finally:
            sys.path[:] = saved
        if spec is None:
            raise UsageError(f"no module named '{target}'")
        return target
    if not os.path.isfile(target):
        raise UsageError(f"can't open file '{target}': no such file")
    return target


def run_program(target: str, args: list[str], module: bool = False,
                failure: list[BaseException] | None = None) -> int:
    """Run ``target`` (a script path, or a module name when ``module``) with ``args``; the exit code.

    An uncaught exception of the program is appended to ``failure`` (when given) so the caller
    can explain it after the traceback was printed.
    """
    check_target(target, module)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    saved_main = sys.modules.get("__main__")
    try:
        if module:
            sys.path.insert(0, os.getcwd())
            sys.argv = [target, *args]  # runpy replaces argv[0] with the module's file
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            path = os.path.abspath(target)
            sys.path.insert(0, os.path.dirname(path))
            sys.argv = [target, *args]
            runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as e:
        return _exit_code(e)
    except KeyboardInterrupt as e:
        _print_exception(e)
        return EXIT_INTERRUPTED
    except BaseException as e:  # the user's program failed: report it like python would
        _print_exception(e)
        if failure is not None:
            failure.append(e)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        sys.stdout.flush()
