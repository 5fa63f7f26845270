"""Host callbacks a compiled program runs, per line of the program that called it: ``jax.pure_callback``.

A jitted function whose program contains a ``jax.pure_callback`` leaves the device for Python at every
execution: JAX copies the operands to the host CPU device, calls the user's function and converts its
results (``_jaxcompat.install_host_callback_hook`` reports each run with its duration). JAX 0.10 and later
dispatch such a program from the C++ fast path (JW501 never sees it), so the per-call cost shows only here.
This probe keeps, per (program line that called the jitted function, host function), the number of runs
and their seconds. On CPU the callback runs on the calling thread and that line is on the stack; on an
accelerator it runs on a runtime thread and the line is unknown (None).

Cost: only callback runs pay, a few microseconds each for the frame walk, against the ~100 us or more of
the round trip itself; nothing else in the program is touched.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from .._jaxcompat.runtime_hooks import install_host_callback_hook
from ..model import Location
from .program_frames import location, program_caller

MAX_SITES = 200
_SAMPLES = 512  # durations kept per site for the median


@dataclass
class HostCallbackSite:
    """The runs of one host function from one line of the program."""

    call_site: Location | None  # the program's line that called the jitted function (None: another thread)
    callback: str  # the host function's name
    callback_location: Location | None  # where the host function is defined
    runs: int = 0
    seconds: float = 0.0
    samples: list[float] = field(default_factory=list)


class HostCallbackProbe:
    """Counts host callback runs per call site while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[Any, ...], HostCallbackSite] = {}
        self._lock = threading.Lock()
        self._uninstall: Any = None

    def install(self) -> HostCallbackProbe:
        self._uninstall = install_host_callback_hook(self._on_call)
        return self

    def uninstall(self) -> None:
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None

    def _on_call(self, callback: Any, seconds: float, caller: FrameType) -> None:
        frame = program_caller(caller)
        code = getattr(callback, "__code__", None)
        key = (frame.f_code.co_filename if frame else None, frame.f_lineno if frame else 0,
               code.co_filename if code else None, code.co_firstlineno if code else 0,
               getattr(callback, "__qualname__", type(callback).__name__))
        with self._lock:
            site = self.sites.get(key)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    return
                where = Location(code.co_filename, code.co_firstlineno, function=code.co_name) if code else None
                site = self.sites[key] = HostCallbackSite(location(frame) if frame else None, key[4], where)
            site.runs += 1
            site.seconds += seconds
            if len(site.samples) < _SAMPLES:
                site.samples.append(seconds)
