"""``JITSCOPE=watch``: watch programs started by launchers you do not control.

jitscope installs ``jitscope-autowatch.pth`` into site-packages (as coverage.py and pytest-cov
do for subprocesses). Python runs it at every interpreter start; only when the ``JITSCOPE``
environment variable is set does it load ``_autowatch_hook.py`` (standard library only, by its path:
the ``jitscope`` package is not imported), which waits for the program to import JAX and then calls
``maybe_start`` here. A process that never imports JAX pays one environment lookup and a few file
checks, imports nothing of jitscope's or JAX's and writes nothing. With ``JITSCOPE=watch`` every
Python process started with that environment (the launcher's children, their ``subprocess`` and
``multiprocessing`` spawn children) that imports JAX watches itself and, once it has compiled
something, writes in ``JITSCOPE_DIR`` (default: the directory it started in):

* ``jitscope-<pid>-<host>-<random>.events.jsonl``: each compile as it happens (one JSON line, flushed);
* ``jitscope-<pid>-<host>-<random>.json``: the whole ``WatchResult`` at exit (``jitscope report`` reads it).

The name part after ``jitscope-`` (``_files.process_token``) cannot collide across hosts, containers
sharing the directory (each is pid 1) or pid reuse, and both files are created with ``O_CREAT | O_EXCL
| O_NOFOLLOW``: a link or a file already at the name (planted in a shared directory) is never written
through or over; that output is then lost, said in one line, and the program runs on.

In a ``jax.distributed`` job both names get the process index once the program's
``jax.distributed.initialize`` ran (``jitscope-<token>.events.p1.jsonl``, ``jitscope-<token>.p1.json``;
``jitscope merge DIR`` reads them), and at exit process 0 prints where the processes' compile
sequences diverge, if they do. ``JITSCOPE_PEER_TIMEOUT`` (seconds, default 60, 0: off): name a
program this process compiled that a peer has not compiled after that long (the hang case).

A process that compiled nothing writes nothing. A failure to start is one line on stderr
(``jitscope: JITSCOPE=watch: <cause>``); it never stops the user's program. A process forked without exec (``os.fork``) shares its parent's
session and is not watched on its own.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading

ENV = "JITSCOPE"
ENV_DIR = "JITSCOPE_DIR"
ENV_PEER_TIMEOUT = "JITSCOPE_PEER_TIMEOUT"
_started = False


def paths(directory: str | None = None) -> tuple[str, str]:
    """(events file, result file) of this process: ``jitscope-<pid>-<host>-<random>.*``, the same all
    through the process."""
    from ._files import process_token

    d = directory or os.environ.get(ENV_DIR) or "."
    token = process_token()
    return os.path.join(d, f"jitscope-{token}.events.jsonl"), os.path.join(d, f"jitscope-{token}.json")


def maybe_start(start_dir: str | None = None) -> None:
    """Called by the startup hook once JAX is imported: begin watching if ``JITSCOPE=watch``. Relative
    paths are taken from ``start_dir`` (the directory the interpreter started in)."""
    global _started
    mode = os.environ.get(ENV, "").strip().lower()
    if mode != "watch" or _started:
        return
    _started = True
    try:
        from ._watch import WatchSession

        events, result = paths()
        # Absolute now, from where the interpreter started: the program may chdir before it exits.
        events = os.path.join(start_dir or os.getcwd(), events)
        result = os.path.join(start_dir or os.getcwd(), result)
        session = WatchSession(events=events, program=" ".join(sys.orig_argv[1:]) or "<python>",
                               peers=True, compare_at_exit=True, exclusive=True, lazy_events=True,
                               **_peer_timeout()).start()
    except Exception as e:  # noqa: BLE001 - the user's program must run whatever happens here
        print(f"jitscope: {ENV}=watch: {type(e).__name__}: {e}; not watching", file=sys.stderr)
        return
    atexit.register(_finish, session, result)
    _write_on_termination(session, result)


def _write_on_termination(session, path: str) -> None:  # type: ignore[no-untyped-def]
    """SIGTERM (where nobody handles it) writes the result first, then ends the process by SIGTERM as
    before: a ``multiprocessing`` pool ends its workers so (``Pool.terminate``), and they wrote no result.
    A SIGTERM that comes while the result is being written (a pool worker already exiting through
    ``atexit``) waits for the write."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def on_term(signum: int, frame: object) -> None:
        _finishing["signal"] = signum
        if _finishing["phase"] == "idle":
            _finish(session, path)  # ends the process by the signal when done
        elif _finishing["phase"] == "done":
            _die(signum)
        # "writing": the write in progress ends the process when done

    try:
        signal.signal(signal.SIGTERM, on_term)
    except (ValueError, OSError):
        pass


def _die(signum: int) -> None:
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _peer_timeout() -> dict[str, float]:
    text = os.environ.get(ENV_PEER_TIMEOUT, "").strip()
    if not text:
        return {}
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        print(f"jitscope: {ENV_PEER_TIMEOUT}={text!r} is not a number of seconds; using the default",
              file=sys.stderr)
        return {}
    return {"peer_timeout": value}


_finishing: dict[str, object] = {"phase": "idle", "signal": None}  # idle -> writing -> done


def _finish(session, path: str) -> None:  # type: ignore[no-untyped-def]
    if _finishing["phase"] != "idle":
        return  # at exit after a SIGTERM already wrote it
    _finishing["phase"] = "writing"
    try:
        _write_result(session, path)
    finally:
        _finishing["phase"] = "done"
        if _finishing["signal"] is not None:
            _die(int(_finishing["signal"]))  # type: ignore[call-overload]


def _write_result(session, path: str) -> None:  # type: ignore[no-untyped-def]
    try:
        session.stop()
        if not session.collector.events:
            return  # compiled nothing: nothing written
        result = session.result(argv=list(sys.argv))
        if result.process_index is not None:
            from ._watch import process_path

            path = process_path(path, result.process_index)
        from ._files import write_exclusive

        write_exclusive(path, result.to_json() + "\n")  # a new file: never through a link, never over one
    except OSError as e:
        print(f"jitscope: {ENV}=watch: cannot write {path}: {e.strerror or e}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - at exit: report, never raise
        print(f"jitscope: {ENV}=watch: cannot write {path}: {e}", file=sys.stderr)
