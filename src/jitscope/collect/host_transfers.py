"""The program's eager conversions of host data to device arrays, per line: ``jnp.asarray(X)``,
``jnp.array(X)``, ``jax.device_put(X)`` of NumPy arrays (JW508, ``implicit-host-transfer``).

Each such call copies the NumPy data host-to-device (``_jaxcompat.install_host_transfer_hook`` times it; a
call inside a trace makes a constant and is not reported). This keeps, per line of the program that made
the call (the first program frame above JAX's, reached through JAX's frames only: a library converting data
for itself is the library's), how many calls there were, their bytes, and, in the steady state (after
its first ``STEADY_AFTER`` calls: the first may compile JAX's eager conversion for its shape, and the first
iteration of the loop compiles the step), the seconds of the calls and the time they span (the loop's steps) and whether the line converted *the same data* each
time (each call in the line is its own site: ``jnp.asarray(X), jnp.asarray(Y)`` are two): for its first
``CHECK_CALLS`` calls a digest of the converted arrays' contents (CRC-32 of their bytes;
of an evenly spaced sample of ``SAMPLE_ELEMENTS`` elements for larger arrays) is compared with the previous
call's. The same object refilled in place with each new batch is new data (its digest changes); a fresh
object holding the same values (``np.array(table)`` rebuilt per step) is the same data. After the check
calls only the count and the time are kept.

Cost: nothing for calls without a NumPy array of 1 KiB or more; for those, a frame walk, a clock read, and
for the first ``CHECK_CALLS`` calls of a line one pass over (a sample of) the data.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from .._jaxcompat.runtime_hooks import install_host_transfer_hook
from ..model import Location
from .host_args import _spec, digest
from .program_frames import location, program_caller

MAX_SITES = 200
CHECK_CALLS = 12
# The steady state starts after the line's second call: the first may compile JAX's eager conversion for its
# shape, and the first iteration of the loop around it compiles the step.
STEADY_AFTER = 2


@dataclass
class HostTransferSite:
    """The eager host-to-device conversions one line of the program made."""

    location: Location
    api: str  # jnp.asarray, jnp.array, jax.device_put
    calls: int = 0
    nbytes: int = 0  # bytes of host data converted, all calls
    seconds: float = 0.0  # time in the calls after the first ``STEADY_AFTER``
    first_end: float = 0.0  # perf_counter when call ``STEADY_AFTER`` returned
    last_end: float = 0.0  # ... and the last
    checked: int = 0  # calls whose data was compared with the previous call's
    same: int = 0  # ... and found equal (same shapes, dtypes and contents)
    specs: list[str] = field(default_factory=list)  # the last call's arrays: ``f32[1000,100]``
    _digest: Any = None


class HostTransferProbe:
    """Counts eager conversions of NumPy data per program line while installed (never raises into the program)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[str, int, int], HostTransferSite] = {}
        self._lock = threading.Lock()
        self._uninstall: Any = None

    def install(self) -> HostTransferProbe:
        self._uninstall = install_host_transfer_hook(self._on_transfer)
        return self

    def uninstall(self) -> None:
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None

    def _on_transfer(self, api: str, arrays: list[Any], seconds: float, caller: FrameType) -> None:
        frame = program_caller(caller)
        if frame is None:
            return
        now = time.perf_counter()
        key = (frame.f_code.co_filename, frame.f_lineno, frame.f_lasti)  # two conversions on one line: two sites
        with self._lock:
            site = self.sites.get(key)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    return
                site = self.sites[key] = HostTransferSite(location(frame), api)
            site.calls += 1
            if site.calls <= STEADY_AFTER:
                site.first_end = now
            else:
                site.seconds += seconds
            site.nbytes += sum(int(a.nbytes) for a in arrays)
            site.last_end = now
            if site.calls <= CHECK_CALLS:
                d = digest(arrays)
                if site.calls > 1:
                    site.checked += 1
                    site.same += d == site._digest
                site._digest = d
                site.specs = [_spec(a) for a in arrays[:4]]
