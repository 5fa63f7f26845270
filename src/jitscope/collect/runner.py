"""Run a Python program the way ``python script.py`` / ``python -m module`` would, in-process.

What is emulated: ``sys.argv`` (``argv[0]`` is the script path, or the module's file for
``-m``), ``__name__ == "__main__"``, ``sys.path[0]`` (the script's directory, or the current
directory for ``-m``), and the exit status:

* normal end -> 0; ``sys.exit(n)`` -> n (``sys.exit("msg")`` prints msg, -> 1; ``None`` -> 0);
* an uncaught exception -> its traceback on stderr (jitscope's and runpy's frames removed), 1;
* Ctrl-C (``KeyboardInterrupt``) -> traceback, 130. CPython itself re-raises SIGINT so the
  shell sees "killed by SIGINT", which shells report as 128 + 2 = 130; we return 130.

* SIGTERM or SIGHUP (a CI cancel, ``timeout``, ``kill``, a closed terminal) -> the program unwinds
  (``finally`` blocks run) and the status is 128 + the signal's number (143, 129), as the shell
  reports a process killed by it, so the caller still writes its results. A signal the program or
  its launcher ignores stays ignored; one the program handles itself is its own.

After the program's body, as Python does at exit: non-daemon threads are joined, then the
``atexit`` handlers the program registered run (last first), so their work is watched too.

``sys.argv``, ``sys.path`` and ``sys.modules['__main__']`` are restored afterwards, and a
standard stream the program closed is reopened on its file descriptor, so the caller (the
watch session) can still write its results.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import runpy
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

from .._jaxcompat import add_program_path
from ..errors import UsageError

EXIT_INTERRUPTED = 130


_TERMINATED_CODES = {128 + int(s) for s in (signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM))}


class Terminated(BaseException):
    """Raised in the program's main thread by SIGTERM / SIGHUP, so it unwinds instead of dying."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def _ours(tb: TracebackType) -> bool:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    raw = tb.tb_frame.f_code.co_filename
    f = raw if raw.startswith("<") else os.path.abspath(raw)
    return f.startswith(here + os.sep) or f == os.path.abspath(runpy.__file__ or "") or f.startswith("<frozen runpy")


def _trim(tb: TracebackType | None) -> TracebackType | None:
    """The traceback without jitscope's or runpy's frames, wherever they are in the chain (the jit hook
    sits between the user's call and JAX)."""
    kept = []
    while tb is not None:
        if not _ours(tb):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
    return kept[0] if kept else None


@contextlib.contextmanager
def _unwind_on_termination() -> Iterator[None]:
    """SIGTERM / SIGHUP raise ``Terminated`` while the program runs (only where nobody set a handler), and
    Ctrl-C raises ``KeyboardInterrupt`` as Python's own handler does (only where the program kept it).

    Never inside XLA's backend compile: XLA checks for Python signals while it compiles, and an exception
    raised there returns from the compile call while XLA goes on compiling in its own threads over objects
    the unwinding frees; the process then died of a segfault after the compile (exit 139). During a compile
    the exception is kept and raised the moment the compile returns (``_jaxcompat.CompileGuard``), with one
    line saying so; a second signal during the same compile raises at once.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[BaseException] = []

    def after_compile() -> None:
        if pending:
            raise pending.pop()

    guard, unguard = _compile_guard(after_compile)

    raised: list[tuple[BaseException, int]] = []  # the exception last raised by a handler, and its signal

    def deliver(exc: BaseException, name: str, signum: int) -> None:
        if guard is not None and guard.compiling() and not pending:
            pending.append(exc)
            with contextlib.suppress(OSError, ValueError, AttributeError):
                print(f"jitscope: {name} during an XLA compile: the program stops when the compile ends (interrupting "
                      "XLA's compile crashes the process); send it again to stop now", file=sys.__stderr__, flush=True)
            return
        pending.clear()
        raised[:] = [(exc, signum)]
        raise exc

    def handler(signum: int, frame: object) -> None:
        deliver(Terminated(signum), signal.Signals(signum).name, signum)

    def int_handler(signum: int, frame: object) -> None:
        deliver(KeyboardInterrupt(), "Ctrl-C", signum)

    # A handler runs wherever the main thread is, also inside a garbage-collector callback (JAX's
    # ``_xla_gc_callback``) or a ``__del__``, where Python ignores exceptions ("Exception ignored in ...") and
    # the program went on as if nothing happened (a SIGTERM or Ctrl-C lost: exit 0). Such an exception is
    # raised again at the next line of the frame the callback interrupted (a one-shot trace function).
    previous_hook = sys.unraisablehook

    def unraisable(u: Any) -> None:
        if raised and u.exc_value is raised[0][0]:
            exc, signum = raised.pop()
            _raise_at_next_line(exc, signum, raised)
            return
        previous_hook(u)

    sys.unraisablehook = unraisable

    installed: dict[int, object] = {}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, handler)
            installed[sig] = signal.SIG_DFL
    if guard is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, int_handler)
        installed[signal.SIGINT] = signal.default_int_handler
    try:
        yield
    finally:
        for sig, old in installed.items():
            if signal.getsignal(sig) in (handler, int_handler):  # the program may have installed its own since
                signal.signal(sig, old)  # type: ignore[arg-type]
        if sys.unraisablehook is unraisable:
            sys.unraisablehook = previous_hook
        unguard()


def _raise_at_next_line(exc: BaseException, signum: int, raised: list[tuple[BaseException, int]]) -> None:
    """Raise ``exc`` in the frame that was running when a callback swallowed it (the unraisable hook's caller),
    at its next line or return. Where a tracer or profiler of the program's own is set, or no such frame
    exists, the signal is sent again instead, a moment later, from another thread."""
    try:
        frame = sys._getframe(2)  # 0: here, 1: the unraisable hook, 2: the frame the callback interrupted
    except ValueError:
        frame = None
    if frame is None or sys.gettrace() is not None:
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return

    def local(f: Any, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            sys.settrace(None)
            f.f_trace = None
            raised[:] = [(exc, signum)]  # swallowed again (another callback): raised again, the same way
            raise exc
        return local

    frame.f_trace = local
    frame.f_trace_lines = True
    sys.settrace(lambda f, event, arg: None)  # tracing on (only this frame has a local tracer)


def _compile_guard(after: Callable[[], None]) -> tuple[object | None, Callable[[], None]]:
    """``_jaxcompat.install_compile_guard`` when JAX is imported (watch imported it before the program runs);
    ``(None, no-op)`` otherwise."""
    if "jax" not in sys.modules:
        return None, lambda: None
    try:
        from .. import _jaxcompat

        return _jaxcompat.install_compile_guard(after)
    except Exception:  # noqa: BLE001 - without the guard, signals interrupt as before
        return None, lambda: None


@contextlib.contextmanager
def _program_atexit() -> Iterator[list[tuple[Callable[..., object], tuple, dict]]]:
    """Collect the ``atexit`` handlers registered while the program runs, to run them under watch."""
    handlers: list[tuple[Callable[..., object], tuple, dict]] = []
    real_register, real_unregister = atexit.register, atexit.unregister

    def register(func: Callable[..., object], *args: object, **kwargs: object) -> Callable[..., object]:
        handlers.append((func, args, kwargs))
        return func

    def unregister(func: Callable[..., object]) -> None:
        handlers[:] = [h for h in handlers if h[0] != func]
        real_unregister(func)

    atexit.register, atexit.unregister = register, unregister  # type: ignore[assignment]
    try:
        yield handlers
    finally:
        atexit.register, atexit.unregister = real_register, real_unregister  # type: ignore[assignment]


def _finish_like_python(handlers: list[tuple[Callable[..., object], tuple, dict]]) -> None:
    """What Python does after the main module: join non-daemon threads, then run atexit handlers (LIFO)."""
    main = threading.main_thread()
    for t in threading.enumerate():
        if t is not main and not t.daemon and t.is_alive() and t is not threading.current_thread():
            t.join()
    while handlers:
        func, args, kwargs = handlers.pop()
        try:
            func(*args, **kwargs)
        except SystemExit:
            pass  # as at interpreter exit: a SystemExit from a handler does not change the status
        except BaseException as e:  # noqa: BLE001 - reported as Python reports it, then go on
            print(f"Exception ignored in atexit callback: {func!r}", file=sys.stderr)
            _print_exception(e)


def _reopen_closed_streams(saved_out: object, saved_err: object) -> None:
    """A program that closed sys.stdout / sys.stderr closed only the Python object (the standard streams
    do not own their descriptors): put a usable stream back so the summary can still be written."""
    for name, fd, saved in (("stdout", 1, saved_out), ("stderr", 2, saved_err)):
        stream = getattr(sys, name)
        if getattr(stream, "closed", False):
            if saved is not None and not getattr(saved, "closed", True):
                setattr(sys, name, saved)
                continue
            with contextlib.suppress(OSError):
                setattr(sys, name, open(fd, "w", closefd=False, encoding="utf-8", errors="backslashreplace"))


def _print_exception(e: BaseException) -> None:
    e.__traceback__ = _trim(e.__traceback__)
    # stderr may be a pipe its reader closed (``jitscope watch prog.py 2>&1 | head``): the traceback is
    # lost, as with plain python, but the run's outputs must still be written.
    with contextlib.suppress(OSError, ValueError):
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
        from .._pycode import find_spec_writing_nothing

        # ``python -m`` searches the current directory first; so does the run (run_program).
        saved = sys.path[:]
        sys.path.insert(0, os.getcwd())
        try:
            spec = find_spec_writing_nothing(target)
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
                failure: list[BaseException] | None = None,
                at_main_guard: Callable[[object], None] | None = None) -> int:
    """Run ``target`` (a script path, or a module name when ``module``) with ``args``; the exit code.

    An uncaught exception of the program (or the one it was handling when it exited with a failure status:
    ``except Exception: sys.exit(1)``) is appended to ``failure`` (when given) so the caller
    can explain it after the traceback was printed. ``at_main_guard``: called with the program's module
    just before its first top-level ``if __name__ == "__main__":`` (``_warmup_runtime.run_as_main``: the
    statements before it and the rest run one after the other in one namespace; never called for a
    program without one); ``jitscope watch --warmup`` warms the program's own functions there.
    """
    check_target(target, module)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    saved_main = sys.modules.get("__main__")
    saved_out, saved_err = sys.stdout, sys.stderr
    with _unwind_on_termination(), _program_atexit() as handlers:
        code = _run_body(target, args, module, failure, at_main_guard)
        try:
            if code not in _TERMINATED_CODES:  # a process killed by a signal runs neither
                _finish_like_python(handlers)
        except KeyboardInterrupt as e:
            _print_exception(e)
            code = code or EXIT_INTERRUPTED
        except Terminated as e:
            code = code or 128 + e.signum
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
            if saved_main is not None:
                sys.modules["__main__"] = saved_main
            _reopen_closed_streams(saved_out, saved_err)
            with contextlib.suppress(ValueError, OSError):
                sys.stdout.flush()
    return code


def _module_file(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return getattr(spec, "origin", None)


def _note_program(path: str | None) -> None:
    """The program's own files are never a library's, even inside site-packages (call sites: docs/watch.md)."""
    if path:
        add_program_path(path)


def _with_plugin(args: list[str]) -> list[str]:
    """``watch -m pytest``: pytest's arguments with jitscope's plugin (which stamps each compile with its test)
    loaded however jitscope is installed. pytest loads it through its ``pytest11`` entry point only where
    jitscope is an installed distribution and plugin autoloading is on; from a source checkout on
    ``PYTHONPATH``, or with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, it is named with ``-p`` (never twice, and never
    against the user's ``-p no:jitscope``)."""
    joined = " ".join(args)
    if "no:jitscope" in joined or "jitscope.pytest_plugin" in joined:
        return args
    if not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        from importlib.metadata import entry_points

        if any(ep.value == "jitscope.pytest_plugin" for ep in entry_points(group="pytest11")):
            return args
    return ["-p", "jitscope.pytest_plugin", *args]


def _run_body(target: str, args: list[str], module: bool, failure: list[BaseException] | None,
              at_main_guard: Callable[[object], None] | None = None) -> int:
    try:
        if at_main_guard is not None:
            from .._warmup_runtime import run_as_main

            sys.path.insert(0, os.getcwd() if module else os.path.dirname(os.path.abspath(target)))
            run_as_main(target, args, module=module, at_main_guard=at_main_guard)
        elif module:
            sys.path.insert(0, os.getcwd())
            if target in ("pytest", "py.test"):
                args = _with_plugin(args)
            sys.argv = [target, *args]  # runpy replaces argv[0] with the module's file
            _note_program(_module_file(target))
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            path = os.path.abspath(target)
            sys.path.insert(0, os.path.dirname(path))
            sys.argv = [target, *args]
            _note_program(path)
            runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as e:
        code = _exit_code(e)
        handled = e.__context__
        if code != 0 and failure is not None and isinstance(handled, Exception):
            # `except Exception: ...; sys.exit(1)`: the program exited with a failure while handling an
            # exception (Python chains it as the exit's __context__): that is what it died of
            failure.append(handled)
        return code
    except KeyboardInterrupt as e:
        _print_exception(e)
        return EXIT_INTERRUPTED
    except Terminated as e:
        print(f"jitscope: the program was {e}; writing what was recorded", file=sys.__stderr__ or sys.stderr)
        return 128 + e.signum
    except BaseException as e:  # the user's program failed: report it like python would
        _print_exception(e)
        if failure is not None:
            failure.append(e)
        return 1
