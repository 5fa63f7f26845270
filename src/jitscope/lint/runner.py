"""Lint many files: collect the paths, run files (in parallel processes for large trees), fix.

Work is split into chunks of files of similar total size and sent to a
``concurrent.futures.ProcessPoolExecutor`` of forked workers; each worker decodes, parses
and lints its files and sends back plain ``FileOutcome`` records. Small runs stay
in-process, where starting workers would cost more than it saves, and so do runs inside a
program that has imported JAX (forking JAX's threads is unsafe).
"""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial

from ..errors import UsageError
from ..model import Finding
from . import evidence, wrappers, wrappers_join
from .callgraph import OutgoingCall
from .engine import decode_source, lint_text
from .reach import class_bases
from .registry import parse_finding
from .source import split_lines
from .traced import follow_across

SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
                       ".mypy_cache", ".ruff_cache", ".pytest_cache", ".eggs", "build", "dist", ".hypothesis"})
PARALLEL_MIN_FILES = 24
MAX_SNIPPET = 1000  # longest source line kept in a finding's details["source"]


@dataclass(eq=False, repr=False)  # per-file state: compared by identity (docs/architecture.md)
class FileOutcome:
    """What linting one file produced."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    lines: int = 0
    fixes_applied: int = 0
    diff: str = ""
    fixed_text: str | None = None
    original: bytes | None = None  # the bytes the fixes were computed from (with ``fixed_text``)
    unfixed: list[Finding] = field(default_factory=list)  # the findings before fixes, if not written
    outgoing: list[OutgoingCall] = field(default_factory=list)  # calls from traced code into other modules
    classes: list = field(default_factory=list)  # (class, bases) of the module, for overrides across files
    replaces: bool = False  # the file linted again with calls from other files: its findings replace the first
    summaries: dict = field(default_factory=dict)  # its jit-wrapper summaries and imports (lint/wrappers.py)
    static_imports: set = field(default_factory=set)  # imported functions its static-argument rules asked about
    no_jax: bool = False  # skipped: it mentions no jax (its calls of other modules' jits are read after the run)


def collect_files(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Python files under ``paths`` (files as given; directories recursed, skipping caches and venvs).

    Anything named ``*.py`` is listed, even a FIFO or a device: ``lint_file`` answers those with a
    finding instead of reading them (reading a FIFO or ``/dev/zero`` never ends). A subdirectory
    that cannot be read is listed too and answered the same way; an unreadable top-level
    directory is a usage error.
    """
    out: list[str] = []
    for raw in paths:
        p = posix_path(raw)
        try:
            is_dir = stat.S_ISDIR(os.stat(p).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            is_dir = False
        except OSError as e:  # e.g. a parent directory this user may not enter
            raise UsageError(f"{raw}: {e.strerror or e}") from None
        if is_dir:
            try:
                os.listdir(p)
            except OSError as e:
                raise UsageError(f"{raw}: cannot read directory: {e.strerror or e}") from None
            unreadable: list[str] = []
            for root, dirs, files in os.walk(p, onerror=partial(_note_unreadable, unreadable)):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
                out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith((".py", ".pyi")))
            out.extend(unreadable)
        elif os.path.lexists(p):
            out.append(str(p))  # a file, or a special file / broken link that lint_file reports
        else:
            raise UsageError(f"{raw}: no such file or directory")
    seen: set[str] = set()
    return [f for f in out if not (f in seen or seen.add(f))]  # type: ignore[func-returns-value]


def posix_path(raw: str | os.PathLike[str]) -> str:
    """``str(PurePosixPath(raw))`` without importing pathlib: empty and ``.`` parts and a trailing ``/`` dropped,
    ``//`` kept at the start only (POSIX leaves its meaning to the system), ``""`` read as ``.``; ``..`` kept
    (it is not normalised away: a link may come before it). The paths lint prints are these
    (tests/test_lint_paths.py compares it with pathlib's)."""
    s = os.fspath(raw)
    if not isinstance(s, str):
        raise TypeError(f"expected str or os.PathLike[str], not {type(s).__name__}")
    root = "//" if s.startswith("//") and not s.startswith("///") else "/" if s.startswith("/") else ""
    return root + "/".join(part for part in s.split("/") if part and part != ".") or "."


def _note_unreadable(into: list[str], e: OSError) -> None:
    into.append(str(e.filename))


def _special(path: str) -> str | None:
    """Why ``path`` is not linted as a file (a FIFO, device, directory, dangling link), or None."""
    try:
        st = os.stat(path)
    except OSError as e:
        return f"cannot read file: {e.strerror or e}"
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISDIR(st.st_mode):
        try:
            os.listdir(path)
        except OSError as e:
            return f"cannot read directory: {e.strerror or e}"
        return "a directory, not a file"
    kind = ("FIFO" if stat.S_ISFIFO(st.st_mode) else "character device" if stat.S_ISCHR(st.st_mode)
            else "block device" if stat.S_ISBLK(st.st_mode) else "socket" if stat.S_ISSOCK(st.st_mode)
            else "special file")
    return f"not a regular file ({kind}): skipped"


def lint_file(path: str, enabled: frozenset[str], fix: tuple[str, ...] = (), diff: bool = False,
              assume_traced: bool = False, observed: dict | None = None) -> FileOutcome:
    """Lint one file; with ``fix`` (allowed safeties) apply those fixes and re-lint the result.

    The cyclic garbage collector is paused while a file is linted: syntax trees hold no
    reference cycles, and collections triggered by their many small objects cost ~10%.
    """
    enabled_gc = gc.isenabled()
    gc.disable()
    try:
        return _lint_file(path, enabled, fix, diff, assume_traced, observed)
    finally:
        if enabled_gc:
            gc.enable()


def _lint_file(path: str, enabled: frozenset[str], fix: tuple[str, ...], diff: bool,
               assume_traced: bool, observed: dict | None = None) -> FileOutcome:
    why = _special(path)
    if why is not None:
        return FileOutcome(path, [_io_finding(path, why)])
    try:
        with open(path, "rb") as fh:  # Path.read_bytes, without importing pathlib
            data = fh.read()
    except OSError as e:
        return FileOutcome(path, [_io_finding(path, f"cannot read file: {e.strerror or e}")])
    text, bad = decode_source(data, path)
    if text is None:
        return FileOutcome(path, [bad] if bad is not None and "JS002" in enabled else [], data.count(b"\n"))
    findings, ctx = lint_text(text, path, set(enabled), assume_traced, observed=observed)
    outcome = FileOutcome(path, findings, text.count("\n") + (not text.endswith("\n") and bool(text)))
    outcome.no_jax = ctx is None and not findings
    if fix and findings:
        from .fixes import apply_fixes, fixes_for, unified_diff  # --fix / --diff only

        new, applied = apply_fixes(text, fixes_for(findings, fix))
        if applied:
            outcome.fixes_applied = applied
            outcome.fixed_text = new
            if diff:
                outcome.diff = unified_diff(text, new, path)
            else:
                outcome.original = data
                outcome.unfixed = findings
                _attach_source(findings, text)
            findings, ctx = lint_text(new, path, set(enabled), observed=observed)
            outcome.findings = findings
            text = new
    _attach_source(outcome.findings, text)
    if ctx is not None:
        outcome.outgoing = ctx.cg_outgoing
        outcome.classes = class_bases(ctx)
        outcome.static_imports = ctx.static_imports
        outcome.summaries = wrappers_join.exports(ctx)
    return outcome


def lint_incoming(path: str, enabled: frozenset[str], calls: list,
                  observed: dict | None = None) -> tuple[FileOutcome | None, list]:
    """Lint ``path`` again with the calls from other files that reach its functions (``lint/traced.py``);
    the outcome (``replaces``) holds every finding of the file."""
    try:
        with open(path, "rb") as fh:  # Path.read_bytes, without importing pathlib
            data = fh.read()
    except OSError:
        return None, []
    text, _ = decode_source(data, path)
    if text is None:
        return None, []
    findings, ctx = lint_text(text, path, set(enabled), incoming=calls, observed=observed)
    _attach_source(findings, text)
    more = ctx.cg_outgoing if ctx is not None else []
    return FileOutcome(path, findings, replaces=True), more


def write_outcome(outcome: FileOutcome) -> None:
    """Write ``outcome``'s fixes to its file; if refused, keep the unfixed findings plus one JS002 saying why."""
    if outcome.fixed_text is None or outcome.original is None:
        return
    from .write import write_fixed  # --fix only

    why = write_fixed(outcome.path, outcome.original, outcome.fixed_text)
    if why is not None:
        outcome.findings = [parse_finding("JS002", f"fixes not written: {why}", outcome.path), *outcome.unfixed]
        outcome.fixes_applied = 0
        outcome.fixed_text = None


def _attach_source(findings: list[Finding], text: str) -> None:
    """Keep each finding's first source line, so a saved result renders its snippet without the file."""
    if not findings:
        return
    lines = split_lines(text)
    for f in findings:
        # A minified or generated line (say 1 MB) is not a snippet: copying it into every finding would
        # make the report grow with findings x line length, so such findings render without one.
        if f.location and 1 <= f.location.line <= len(lines) and len(lines[f.location.line - 1]) <= MAX_SNIPPET:
            f.details["source"] = lines[f.location.line - 1]


def _io_finding(path: str, why: str) -> Finding:
    return parse_finding("JS002", why, path)


def _chunk(items: list[tuple[str, frozenset[str]]], n_chunks: int) -> list[list[tuple[str, frozenset[str]]]]:
    """Split into chunks of similar total file size (big files first, greedy)."""
    sized = []
    for item in items:
        try:
            size = os.path.getsize(item[0])
        except OSError:
            size = 0
        sized.append((size, item))
    sized.sort(key=lambda s: -s[0])
    chunks: list[list[tuple[str, frozenset[str]]]] = [[] for _ in range(n_chunks)]
    loads = [0] * n_chunks
    for size, item in sized:
        i = loads.index(min(loads))
        chunks[i].append(item)
        loads[i] += size + 2000
    return [c for c in chunks if c]


def _lint_chunk(chunk: list[tuple[str, frozenset[str]]], fix: tuple[str, ...], diff: bool,
                assume_traced: bool = False, tables: dict | None = None) -> list[FileOutcome]:
    return [lint_file(p, enabled, fix, diff, assume_traced, evidence.for_file(tables, p)) for p, enabled in chunk]


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, e.g. a container's share), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def clamp_jobs(jobs: int | None, n_items: int) -> int:
    """Worker processes to use: ``jobs`` (default: every CPU), at most the CPUs and the files, at least 1.

    ``--jobs 99999`` used to fork that many workers; more workers than CPUs or files only add cost.
    """
    return max(1, min(jobs or usable_cpus(), usable_cpus(), max(n_items, 1)))


def run(items: list[tuple[str, frozenset[str]]], *, jobs: int = 1, fix: tuple[str, ...] = (),
        diff: bool = False, assume_traced: bool = False, tables: dict | None = None) -> Iterator[FileOutcome]:
    """Lint ``(path, enabled codes)`` items, in ``jobs`` processes when there are enough files.

    ``assume_traced`` is the engine's stress mode (every function traced), for robustness tests;
    ``tables`` is the evidence of a run (``evidence.index``), by file.
    """
    jobs = clamp_jobs(jobs, len(items))
    can_fork = jobs > 1 and len(items) >= PARALLEL_MIN_FILES and _can_fork()
    outgoing: dict[str, list[OutgoingCall]] = {}
    classes: dict[str, list] = {}
    summaries: dict[str, dict] = {}
    imports: dict[str, set] = {}
    no_jax: list[str] = []
    for outcome in _run(items, jobs, fix, diff, assume_traced, can_fork, tables):
        if outcome.no_jax:
            no_jax.append(outcome.path)
        if outcome.summaries:
            summaries[outcome.path], outcome.summaries = outcome.summaries, {}
        if outcome.static_imports:
            imports[outcome.path], outcome.static_imports = outcome.static_imports, set()
        if outcome.outgoing:
            outgoing[outcome.path] = outcome.outgoing
            outcome.outgoing = []
        if outcome.classes:
            classes[outcome.path] = outcome.classes
            outcome.classes = []
        yield outcome
    enabled_of = dict(items)
    # Static arguments across the linted files: calls of another module's jit wrapper (lint/wrappers.py).
    if not fix:
        imports.update(wrappers_join.skipped_callers(summaries, no_jax))
    wrappers.PROJECT = {} if fix else wrappers_join.join(summaries, imports, [p for p, _ in items])
    try:
        for path in sorted(wrappers.PROJECT):
            again, _ = lint_incoming(path, enabled_of[path], [], evidence.for_file(tables, path))
            if again is not None:
                yield again
        # The call graph across the linted files: functions in one file reached from traced code in another.
        yield from follow_across(outgoing, [p for p, _ in items],  # type: ignore[misc]
                                 lambda path, calls: lint_incoming(path, enabled_of[path], calls,
                                                                   evidence.for_file(tables, path)), classes)
    finally:
        wrappers.PROJECT = {}


def _can_fork() -> bool:
    """Workers are forked (cheap, nothing to re-import). Forking a process that already runs JAX's
    threads can deadlock, and spawning would re-run an unguarded user script, so a program that
    has imported JAX lints in-process. The `jitscope lint` command never imports JAX. (multiprocessing
    is imported only here and in ``_run``'s pool: one file's lint does not pay for it.)"""
    import multiprocessing

    return "jax" not in sys.modules and "fork" in multiprocessing.get_all_start_methods()


def _worker_ignores_sigint() -> None:
    """A worker's first act: ignore SIGINT (the parent handles Ctrl-C and stops the workers), then take the
    signal mask the parent forked it with off (a SIGINT pending since the fork is discarded, never raised:
    a worker waiting for work used to die of it with a KeyboardInterrupt traceback)."""
    import signal  # here, not at the top: one file's lint (no workers) does not pay for it

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread while workers are forked (they inherit the mask); restored after, when a
    SIGINT that came meanwhile is delivered to the parent."""
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _run(items: list[tuple[str, frozenset[str]]], jobs: int, fix: tuple[str, ...], diff: bool,
         assume_traced: bool, can_fork: bool, tables: dict | None = None) -> Iterator[FileOutcome]:
    if jobs <= 1 or len(items) < PARALLEL_MIN_FILES or not can_fork:
        for p, enabled in items:
            yield lint_file(p, enabled, fix, diff, assume_traced, evidence.for_file(tables, p))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Small chunks (a few files each, at most 256 chunks): on Ctrl-C each worker finishes the chunk it holds
    # (a worker killed while it sends a result leaves the pool's reader waiting for the rest of the
    # message forever, and the interpreter's exit joins that reader: the hang CI saw).
    chunks = _chunk(items, max(jobs * 4, min(len(items) // 4, 256)))
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_ignores_sigint)
    try:
        # The workers are forked by the first submit, with SIGINT blocked: a Ctrl-C (sent to the whole
        # process group) that arrives before a worker's initializer ran stays pending and is discarded
        # when the initializer ignores it; the parent gets it when the mask is restored, and stops them.
        with _sigint_blocked():
            futures = [pool.submit(_lint_chunk, c, fix, diff, assume_traced,
                                   {os.path.realpath(p): tables[os.path.realpath(p)] for p, _ in c
                                    if tables and os.path.realpath(p) in tables}) for c in chunks]
        for fut in futures:
            yield from fut.result()
    except BaseException:  # Ctrl-C, or the caller stopped early: leave no workers behind
        workers = list((getattr(pool, "_processes", None) or {}).values())
        try:  # queued chunks cancelled; running ones end (a worker ignores SIGINT) and the pool closes whole
            pool.shutdown(wait=True, cancel_futures=True)
        except BaseException:  # a second Ctrl-C: stop the workers now
            for proc in workers:
                proc.terminate()
            raise
        raise
    pool.shutdown()
