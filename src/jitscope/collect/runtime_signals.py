"""The probes behind watch's taxonomy findings (docs/pitfalls.md), installed and removed together.

``RuntimeSignals`` groups what ``jax_signals``, ``host_reads``, ``host_args``, ``host_callbacks``, ``key_use`` and
``dispatch_sampler`` record while a watch with findings runs: JAX's exceptions and warnings at the program's
lines, host reads of arrays per line, host callback runs per call site, clock reads that end a timed region early, NumPy arguments sent from loops, eager conversions of NumPy data per line, PRNG key uses, the trace context of
each user trace, and sampled stacks of the watched thread. Each probe is independent: one that cannot install (a JAX that moved its hook) leaves the others
working.
"""

from __future__ import annotations

from typing import Any

from .clock_reads import ClockReadProbe
from .dispatch_sampler import DispatchSampler
from .host_args import HostArgumentProbe
from .host_callbacks import HostCallbackProbe
from .host_reads import HostReadProbe
from .host_transfers import HostTransferProbe
from .jax_signals import JaxErrorProbe, JaxWarningProbe, TraceContextProbe
from .jit_disabled import JitDisabledProbe
from .key_use import KeyUseProbe, LoopKeyProbe


class RuntimeSignals:
    """Install with ``install()``, remove with ``uninstall()``; read the probes' records any time."""

    def __init__(self) -> None:
        self.errors = JaxErrorProbe()
        self.warnings = JaxWarningProbe()
        self.host_reads = HostReadProbe()
        self.keys = KeyUseProbe()
        self.loop_keys = LoopKeyProbe()
        self.context = TraceContextProbe()
        self.host_args = HostArgumentProbe()
        self.sampler = DispatchSampler()
        self.host_callbacks = HostCallbackProbe()
        self.clocks = ClockReadProbe()
        self.host_reads.clock_timed = self.clocks.timed_between  # a sync inside a timed region: a benchmark's
        self.host_transfers = HostTransferProbe()
        self.jit_disabled = JitDisabledProbe()
        self._probes: list[Any] = [self.errors, self.warnings, self.host_reads, self.keys, self.context,
                                   self.host_args, self.sampler, self.host_callbacks, self.clocks,
                                   self.host_transfers, self.jit_disabled, self.loop_keys]
        self._installed: list[Any] = []

    def install(self) -> RuntimeSignals:
        for p in self._probes:
            if p in self._installed:
                continue
            try:
                p.install()
            except Exception:  # noqa: BLE001 - a probe that cannot install costs its findings only
                continue
            self._installed.append(p)
        return self

    def uninstall(self) -> None:
        while self._installed:
            p = self._installed.pop()
            try:
                p.uninstall()
            except Exception:  # noqa: BLE001
                pass
