"""What JAX itself tells the running program outside the compile path: the exceptions it raises into the
program's code (caught or not) and the warnings it issues, each at the program's line.

* ``JaxErrorProbe``: every exception that leaves a JAX API (``_jaxcompat.install_boundary_hook``: JAX's
  own exception boundary) is kept when JAX raised it (the innermost frame of its traceback is JAX's, or
  jaxlib's C++ under a JAX frame) and the program called that API directly (only JAX frames between).
  A ``jax.Array`` used after donation, a leaked tracer used after its trace, an argument jit cannot
  abstract: each is a ``JaxError`` even when the program catches it and carries on, except where the
  program asserts it (a line inside ``with pytest.raises(...)``/``self.assertRaises(...)``: a test of the
  error path). An exception is kept
  once, at the innermost boundary that meets those rules. Errors raised inside a trace (a tracer error:
  JW101 reports those) are marked ``in_trace``. Errors JAX's C++ dispatch raises straight into the
  program's frame (a non-hashable static argument) cross no boundary: on Python 3.12+ ``cpp_raises`` sees
  them through ``sys.monitoring`` (with the library, e.g. ``equinox``, whose frames they passed).
* ``JaxWarningProbe``: ``warnings.showwarning`` is wrapped while watching; a warning whose ``warnings.warn``
  call came from JAX's code is kept with the program's line (the innermost program frame on the stack when
  it is shown). Only warnings Python's filters let through are seen (the program's own filters decide, as
  they do for the user); the wrapper calls whatever ``showwarning`` was installed, so nothing changes in
  what the program prints.
* ``TraceContextProbe`` (a ``monitoring.probes`` member): the trace context JAX adds to jit's cache key,
  read for each slow-path call that traced a user function, into ``RawCompile.live["context"]``, and the
  checking modes on then (``jaxmodel.deliberate.CHECK_MODES``: ``jax.checking_leaks``) into ``live["checks"]``.
"""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from .._jaxcompat.runtime_hooks import install_boundary_hook, staging_now, trace_context
from ..jaxmodel.deliberate import check_modes
from ..model import Location
from .error_chain import handed_at, program_chain
from .program_frames import expects_error, frame_kind, innermost_program_frame, location, program_caller

MAX_RECORDS = 200  # per probe: findings are grouped by line; a program raising in a loop is summarised
_MESSAGE_CHARS = 2000  # a leaked tracer's message names the line that made it after ~500 characters of prose and paths


@dataclass
class JaxError:
    """One exception JAX raised into the program's code (whether the program caught it or not)."""

    error: str  # the exception's class name
    bases: tuple[str, ...]  # the names of its classes (``__mro__``), to match JAX's error families
    message: str  # JAX's message (first ``_MESSAGE_CHARS`` characters)
    location: Location | None  # the program's line that called the JAX API
    time: float  # time.time() when it was raised
    in_trace: bool = False  # raised while a trace was running (a tracer error inside a jitted function)
    count: int = 1  # the same error (class, line) seen again
    library: str = ""  # the top-level package of a library between the program's call and JAX ("equinox")
    inner: Location | None = None  # the innermost program frame of the traceback (where the program's code was)
    frames: list = field(default_factory=list)  # collect.error_chain.program_chain: every program frame, outermost first
    defined: list = field(default_factory=list)  # collect.error_chain.handed_at: the program's functions the line handed to JAX


@dataclass
class JaxWarning:
    """One warning JAX issued while the program ran, at the program's line."""

    category: str
    message: str
    location: Location | None
    time: float
    count: int = 1
    function: str = ""  # the user function whose jit call was on this thread's slow path when JAX warned


def _library(exc: BaseException, frame: FrameType) -> str:
    """The top-level package of the first library frame the exception passed on its way from JAX to the
    program's ``frame`` (a jit wrapper such as ``equinox.filter_jit``), or ''."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame is not frame:
        tb = tb.tb_next
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        name = tb.tb_frame.f_globals.get("__name__", "")
        if frame_kind(tb.tb_frame.f_code.co_filename) == "other" and name:
            return str(name).split(".")[0]
        tb = tb.tb_next
    return ""


def _innermost(exc: BaseException) -> Location | None:
    """The innermost program frame of the exception's traceback (a library's own line, a helper the program's
    call reached before JAX raised), or None."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        if frame_kind(tb.tb_frame.f_code.co_filename) == "program":
            found = tb
        tb = tb.tb_next
    if found is None:
        return None
    code = found.tb_frame.f_code
    return Location(code.co_filename, found.tb_lineno, function=getattr(code, "co_qualname", code.co_name))


def _raised_by_jax(exc: BaseException) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and frame_kind(last.tb_frame.f_code.co_filename) == "jax"


class JaxErrorProbe:
    """Keeps ``JaxError`` records while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.errors: list[JaxError] = []
        self._index: dict[tuple[str, str, int], JaxError] = {}
        # Recent exceptions by id, with their class and message: an exception crosses several boundaries in
        # quick succession; no reference is kept (a traceback would keep the frames' arrays alive). The third
        # item says which hook kept it ("boundary", "monitor").
        self._seen: dict[int, tuple[type, str, str]] = {}
        self._lock = threading.Lock()
        self._uninstall: Any = None
        self._uninstall_cpp: Any = None

    def install(self) -> JaxErrorProbe:
        from .cpp_raises import install_raise_monitor

        self._uninstall = install_boundary_hook(self._on_error)
        self._uninstall_cpp = install_raise_monitor(self._on_cpp_raise)
        return self

    def uninstall(self) -> None:
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None
        if self._uninstall_cpp is not None:
            self._uninstall_cpp()
            self._uninstall_cpp = None

    def _on_cpp_raise(self, exc: BaseException, frame: FrameType) -> None:
        """An error JAX's C++ dispatch raised into the program's ``frame`` (``cpp_raises``; the event fires
        again in each frame the exception propagates to). Kept once: in the innermost program frame it
        reached, unless a JAX boundary between kept it already. Raised by a call in this very frame, it is
        new (never the ``_seen`` entry of an earlier exception whose id Python reused)."""
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame is not frame:
            tb = tb.tb_next
        deeper = tb.tb_next if tb is not None else None
        inner = deeper
        while inner is not None:
            if frame_kind(inner.tb_frame.f_code.co_filename) == "program":
                return  # kept in the program frame it came from
            inner = inner.tb_next
        sig = (type(exc), str(exc)[:200])
        if deeper is not None:
            with self._lock:
                if self._seen.get(id(exc)) == (*sig, "boundary"):
                    return  # kept where it crossed a JAX boundary
        if not expects_error(frame):
            self._keep(exc, sig, frame, "monitor")

    def _on_error(self, exc: BaseException, caller: FrameType) -> None:
        sig = (type(exc), str(exc)[:200])
        with self._lock:
            if self._seen.get(id(exc), ())[:2] == sig:
                return
        frame = program_caller(caller)
        if frame is None or not _raised_by_jax(exc):
            return  # not (yet) where the program called JAX: an outer boundary may be
        if expects_error(frame):
            return  # `with pytest.raises(...)`: the program tests this error
        self._keep(exc, sig, frame, "boundary")

    def _keep(self, exc: BaseException, sig: tuple[type, str], frame: FrameType, source: str) -> None:
        with self._lock:
            if len(self._seen) >= 32:
                self._seen.pop(next(iter(self._seen)))
            self._seen[id(exc)] = (*sig, source)
        loc = location(frame)
        key = (type(exc).__name__, loc.file, loc.line)
        with self._lock:
            known = self._index.get(key)
            if known is not None:
                known.count += 1
                return
            if len(self.errors) >= MAX_RECORDS:
                return
            rec = JaxError(type(exc).__name__, tuple(c.__name__ for c in type(exc).__mro__),
                           str(exc)[:_MESSAGE_CHARS], loc, time.time(), in_trace=staging_now(),
                           library=_library(exc, frame), inner=_innermost(exc), frames=program_chain(exc),
                           defined=handed_at(frame, frame.f_lineno or 0))
            self._index[key] = rec
            self.errors.append(rec)


class JaxWarningProbe:
    """Keeps ``JaxWarning`` records of JAX's warnings while installed."""

    def __init__(self) -> None:
        self.warnings: list[JaxWarning] = []
        self._index: dict[tuple[str, str, str, int], JaxWarning] = {}
        self._lock = threading.Lock()
        self._previous: Any = None
        self._wrapper: Any = None

    def install(self) -> JaxWarningProbe:
        previous = warnings.showwarning

        def showwarning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                        line: Any = None) -> None:
            try:
                self._seen(message, category, sys_frame())
            except Exception:  # noqa: BLE001 - the program's warning is shown whatever happens here
                pass
            return previous(message, category, filename, lineno, file, line)

        self._previous, self._wrapper = previous, showwarning
        warnings.showwarning = showwarning
        return self

    def uninstall(self) -> None:
        if self._wrapper is not None and warnings.showwarning is self._wrapper:
            warnings.showwarning = self._previous
        self._wrapper = None

    def _seen(self, message: Any, category: Any, frame: FrameType | None) -> None:
        # Past the warnings module's own frames: the frame that called warnings.warn issued it.
        while frame is not None and frame.f_code.co_filename == warnings.__file__:
            frame = frame.f_back
        if frame is None or frame_kind(frame.f_code.co_filename) != "jax":
            return
        user = innermost_program_frame(frame)
        loc = location(user) if user is not None else None
        text = str(message)[:_MESSAGE_CHARS]
        name = getattr(category, "__name__", str(category))
        key = (name, text.split(":")[0], loc.file if loc else "", loc.line if loc else 0)
        with self._lock:
            known = self._index.get(key)
            if known is not None:
                known.count += 1
            elif len(self.warnings) < MAX_RECORDS:
                rec = self._index[key] = JaxWarning(name, text, loc, time.time(), function=_jit_function())
                self.warnings.append(rec)


def _jit_function() -> str:
    """The user function JAX is tracing, lowering or compiling on this thread ('' when none): the innermost
    slow-path jit call, else the record the capture engine holds open from a trace to its compile (JAX
    lowers after the traced call has returned)."""
    from . import monitoring
    from .watch_signature import function_name, is_user_function

    state = monitoring._state
    for call in reversed(getattr(state, "calls", None) or []):
        try:
            if is_user_function(call.fun):
                return function_name(call.fun)
        except Exception:  # noqa: BLE001
            return ""
    raw = getattr(state, "open", None)
    return raw.function if raw is not None and raw.user else ""


def sys_frame() -> FrameType | None:
    """The caller of ``showwarning`` (two frames up from here)."""
    import sys

    return sys._getframe(2)


class MonitoringProbe:
    """A ``monitoring.probes`` member: called around every slow-path jit call; subclasses override ``exit``."""

    def install(self) -> MonitoringProbe:
        from . import monitoring

        monitoring.probes.append(self)
        return self

    def uninstall(self) -> None:
        from . import monitoring

        if self in monitoring.probes:
            monitoring.probes.remove(self)

    def enter(self, call: Any) -> None:
        pass

    def result(self, call: Any, out: Any) -> None:
        pass

    def exit(self, call: Any, exc: BaseException | None) -> None:
        pass


class TraceContextProbe(MonitoringProbe):
    """Each user trace's trace context into ``RawCompile.live["context"]``."""

    def exit(self, call: Any, exc: BaseException | None) -> None:
        raw = call.pending
        if raw is not None and raw.user and "context" not in raw.live:
            ctx = trace_context()
            if ctx is not None:
                raw.live["context"] = ctx
            checks = check_modes()  # not in the cache key: whether a checking mode was on (JW403 pairs within one)
            if checks is not None:
                raw.live["checks"] = checks
