"""Where the program's thread spends its time, sampled: the evidence for dispatch-bound loops (JW504).

JAX's C++ dispatch fast path runs no Python and fires no event, so counting cached calls would cost every
call something. Instead a daemon thread looks at the watched thread's stack every ``INTERVAL`` seconds
(``sys._current_frames()``; the GIL decides when it gets to look, so the rate is lower under load) and files
each sample by the innermost frame of the program (``program_frames``) and what runs inside it:

* ``call``: nothing of Python inside the program's line: a C++ call in progress (a cached jitted call,
  NumPy, ...), or the line itself;
* ``eager``: JAX's own Python below the line, not tracing or compiling: an operation dispatched eagerly
  (``jnp.sin(x)`` outside jit, each one its own small program);
* ``compile``: JAX tracing, lowering or compiling (the slow path: not dispatch);
* ``other``: a library's or the standard library's Python below the line, or no program frame at all.

The samples are counted per (file, line, kind) with the program frame's function. Cost: the sampling
thread wakes ``1 / INTERVAL`` times a second (the first ``EARLY_SAMPLES``, then ``1 / LATE_INTERVAL``) and
takes the GIL each time for a few microseconds; nothing runs on the program's own calls.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from ..model import Location
from .program_frames import frame_kind

INTERVAL = 0.01  # seconds between samples (the GIL may stretch it) for the first EARLY_SAMPLES
EARLY_SAMPLES = 1000
LATE_INTERVAL = 0.05  # then: a long run's shares need no more, and its cost falls to a fifth
MAX_SITES = 2000
_COMPILE_FILES = ("pjit.py", "partial_eval.py", "compiler.py", "mlir.py", "pxla.py", "api_util.py",
                  "linear_util.py", "stages.py", "ad.py", "batching.py")


@dataclass
class SampleSite:
    """Samples taken while the program's thread was at one line."""

    location: Location
    counts: dict[str, int] = field(default_factory=dict)  # kind -> samples
    callees: list[str] = field(default_factory=list)  # JAX callables the line names (``line_callees``)


class DispatchSampler:
    """Samples one thread's stack while installed (``install()`` from the thread to watch)."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self.samples = 0
        self.kinds: dict[str, int] = {}
        self.sites: dict[tuple[str, int], SampleSite] = {}
        self._target: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Sites whose callees are still to read: (file, line) -> the frame's globals. The sampling thread never
        # parses source itself: CPython before 3.11.8 / 3.12.1 keeps one AST-conversion depth counter per
        # interpreter (gh-106905), and an ``ast.parse`` on this thread while the program's thread parses
        # (pytest rewriting a module, a library reading its source) makes the program's raise a spurious
        # ``SystemError: AST constructor recursion depth mismatch``. They are read at ``uninstall``.
        self._pending: dict[tuple[str, int], dict[str, Any]] = {}

    def install(self) -> DispatchSampler:
        self._target = threading.get_ident()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="jitscope-dispatch-sampler", daemon=True)
        self._thread.start()
        return self

    def uninstall(self) -> None:
        self._stop.set()
        t, self._thread = self._thread, None
        if t is not None and t is not threading.current_thread():
            t.join(timeout=1.0)
        if t is None or not t.is_alive():
            self.read_callees()

    def read_callees(self) -> None:
        """Fill in each sampled line's callees (``line_callees``), on the calling thread."""
        pending, self._pending = self._pending, {}
        for key, namespace in pending.items():
            site = self.sites.get(key)
            if site is not None:
                try:
                    site.callees = line_callees(key[0], key[1], namespace)
                except Exception:  # noqa: BLE001 - a line that cannot be read names no callee
                    pass

    def _run(self) -> None:
        while not self._stop.wait(self.interval if self.samples < EARLY_SAMPLES else LATE_INTERVAL):
            try:
                frame = sys._current_frames().get(self._target)  # type: ignore[arg-type]
                if frame is None:
                    return  # the watched thread ended
                try:
                    self._sample(frame)
                finally:
                    # Never hold the program's frame between samples: a frame kept alive keeps its tracers
                    # alive past their trace, and jax.checking_leaks() reports "Leaked trace" in the program.
                    frame = None
            except Exception:  # noqa: BLE001 - a sampler must never disturb the program
                continue

    def _sample(self, frame: Any) -> None:
        inner: list[str] = []  # kinds of the frames inside the program's frame, innermost first
        compiling = False
        f = frame
        while f is not None:
            filename = f.f_code.co_filename
            kind = frame_kind(filename)
            if kind == "program":
                break
            if kind == "jax" and filename.endswith(_COMPILE_FILES):
                compiling = True
            inner.append(kind)
            f = f.f_back
        self.samples += 1
        if f is None:
            what = "other"
        elif compiling:
            what = "compile"
        elif not inner or all(k == "jitscope" for k in inner):
            what = "call"
        elif all(k in ("jax", "jitscope") for k in inner):
            what = "eager"
        else:
            what = "other"
        self.kinds[what] = self.kinds.get(what, 0) + 1
        if f is None or what == "other":
            return
        key = (f.f_code.co_filename, f.f_lineno)
        site = self.sites.get(key)
        if site is None:
            if len(self.sites) >= MAX_SITES:
                return
            code = f.f_code
            site = self.sites[key] = SampleSite(Location(code.co_filename, f.f_lineno,
                                                         function=getattr(code, "co_qualname", code.co_name)))
            self._pending[key] = f.f_globals
        site.counts[what] = site.counts.get(what, 0) + 1


def line_callees(filename: str, line: int, namespace: dict[str, Any]) -> list[str]:
    """The callables a source line calls by a module-level name (``step(x)``, ``jnp.exp(x)``) that are JAX's:
    a jitted function (it has ``lower``) or a function of a ``jax`` module; as ``name`` strings. Names bound
    to locals are not resolved (the frame belongs to another thread); read once per sampled line."""
    import ast
    import linecache

    text = linecache.getline(filename, line).strip()
    if not text:
        return []
    try:
        tree = ast.parse(text.rstrip(":") + ("\n    pass" if text.endswith(":") else ""))
    except SyntaxError:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts: list[str] = []
        fn: Any = node.func
        while isinstance(fn, ast.Attribute):
            parts.append(fn.attr)
            fn = fn.value
        if not isinstance(fn, ast.Name):
            continue
        parts.append(fn.id)
        obj: Any = namespace.get(parts[-1], namespace.get("__builtins__", {}).get(parts[-1])
                                 if isinstance(namespace.get("__builtins__"), dict) else None)
        for attr in reversed(parts[:-1]):
            obj = getattr(obj, attr, None) if obj is not None and not isinstance(obj, (dict, list)) else None
        if obj is not None and _is_jax_callable(obj):
            out.append(".".join(reversed(parts)))
    return out


def _is_jax_callable(obj: Any) -> bool:
    if not callable(obj):
        return False
    if hasattr(obj, "lower") and hasattr(obj, "trace"):
        return True  # a jax.jit object (the program's or JAX's own jitted routine)
    module = getattr(obj, "__module__", "") or ""
    return isinstance(module, str) and (module == "jax" or module.startswith(("jax.", "jaxlib")))
