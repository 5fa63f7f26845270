"""Watch's taxonomy findings (docs/pitfalls.md): the classes of the pitfall taxonomy that the per-trace
analyses of ``runtime_findings.py`` do not cover, made from the probes of ``collect/runtime_signals.py``
and the run's compile records.

Two moments, as for the other findings:

* ``observe(event, kind, live)`` at each trace of a user function (never on a cached call): JW503 (a host
  callback inside a compiled loop, from the jaxpr) and JW406 (a recompile under another trace context).
* ``finish(...)`` when the result is built: JW102-JW104 (errors JAX raised into the program), JW405/JW407/JW409
  (shape recompiles, compiles that never stop, structure changes in a loop), JW408 (persistent cache), JW502 (host reads per
  iteration), JW506 (a pure_callback run at every call), JW507 (a timed region
  cut short by asynchronous dispatch), JW508 (the same host data converted to a device array per step), JW504 (dispatch-bound loops), JW601/JW602 (PRNG keys), JW603/JW604 (JAX's dtype and donation
  warnings).

Nothing here may break the user's program: each analysis is guarded, and a failure costs its findings only
(``failures`` counts them).
"""

from __future__ import annotations

import threading
from typing import Any

from ..model import CompileEvent
from .runtime_findings import RuntimeFinding, _function_of


class TaxonomyAnalyzer:
    """Per-trace and end-of-run taxonomy findings (thread-safe; never raises)."""

    def __init__(self) -> None:
        from .recompile_patterns import ContextTracker

        self.findings: list[RuntimeFinding] = []  # the per-trace ones
        self.failures = 0
        self.sizes: dict[str, tuple[int, int]] = {}  # function -> its largest program (equations, elements)
        self._contexts = ContextTracker()
        self._lock = threading.Lock()

    def observe(self, event: CompileEvent, kind: str, live: dict[str, Any]) -> None:
        """Analyse one trace of a user function (``kind`` as for ``RuntimeAnalyzer.observe``)."""
        if kind != "compile":
            return  # a trace that compiled nothing runs nothing: no loop, no recompile
        base = {"compile_index": event.index, "timestamp": event.timestamp, "seconds": event.total_seconds}
        found: list[RuntimeFinding] = []
        jaxpr, fn = live.get("jaxpr"), _function_of(live.get("fun"))
        facts = None
        try:
            from .dispatch_overhead import program_facts

            if jaxpr is not None:
                facts = program_facts(jaxpr)  # one pass: the size (JW504), and whether to look further
                with self._lock:
                    old = self.sizes.get(event.function, (0, 0))
                    self.sizes[event.function] = (max(old[0], facts.equations), max(old[1], facts.biggest))
        except Exception:  # noqa: BLE001
            self.failures += 1
        if facts is not None and facts.callbacks:
            try:
                from .callback_loops import callback_loop_findings

                found += callback_loop_findings(event, jaxpr, fn, base)
            except Exception:  # noqa: BLE001 - the user's program must never fail because of an analysis
                self.failures += 1
        if facts is not None and facts.random:
            try:
                from .key_reuse import constant_key_findings

                found += constant_key_findings(event, jaxpr, fn, base)
            except Exception:  # noqa: BLE001
                self.failures += 1
        try:
            with self._lock:
                found += self._contexts.observe(event, live.get("context"), base)
        except Exception:  # noqa: BLE001
            self.failures += 1
        if found:
            with self._lock:
                self.findings.extend(found)

    def finish(self, signals: Any, events: list[CompileEvent], *, t0: float, wall_seconds: float,
               cache_dir: str | None) -> list[RuntimeFinding]:
        """The per-trace findings and those made from the whole run (``signals``: a
        ``collect.runtime_signals.RuntimeSignals``, or None)."""
        out = list(self.findings)
        steps: list[tuple[str, Any]] = [
            ("recompile", lambda: _recompiles(events, wall_seconds)),
            ("cache", lambda: _cache(events, cache_dir)),
        ]
        if signals is not None:
            steps += [
                ("errors", lambda: _errors(signals, t0, events)),
                ("warnings", lambda: _warnings(signals, t0)),
                ("host", lambda: _host(signals)),
                ("keys", lambda: _keys(signals, self.findings)),
                ("host_args", lambda: _host_args(signals)),
                ("dispatch", lambda: _dispatch(signals, events, dict(self.sizes))),
                ("host_callbacks", lambda: _host_callbacks(signals, events, self.findings)),
                ("clocks", lambda: _clocks(signals)),
                ("host_transfers", lambda: _host_transfers(signals)),
                ("jit_disabled", lambda: _jit_disabled(signals, events)),
            ]
        for _, step in steps:
            try:
                out += step()
            except Exception:  # noqa: BLE001
                self.failures += 1
        return out


def _recompiles(events: list[CompileEvent], wall_seconds: float) -> list[RuntimeFinding]:
    from .recompile_patterns import growth_findings, shape_findings
    from .structure_recompiles import structure_findings

    return shape_findings(events) + growth_findings(events, wall_seconds) + structure_findings(events)


def _cache(events: list[CompileEvent], cache_dir: str | None) -> list[RuntimeFinding]:
    from .cache_findings import cache_findings

    return cache_findings(events, cache_dir)


def _errors(signals: Any, t0: float, events: list[CompileEvent]) -> list[RuntimeFinding]:
    from .jax_errors import error_findings

    return error_findings(list(signals.errors.errors), t0, events)


def _warnings(signals: Any, t0: float) -> list[RuntimeFinding]:
    from .jax_warnings import warning_findings

    return warning_findings(list(signals.warnings.warnings), t0)


def _host(signals: Any) -> list[RuntimeFinding]:
    from .host_sync import host_sync_findings

    return host_sync_findings(list(signals.host_reads.sites.values()))


def _keys(signals: Any, traced: list[RuntimeFinding]) -> list[RuntimeFinding]:
    """JW601 (keys consumed twice; a loop's key the same on every iteration), and JW602 from the probe for lines
    the traced programs did not already report."""
    from .key_reuse import key_findings, loop_key_findings, seeded_key_findings

    seen = {(f.location.file, f.location.line) for f in traced if f.code == "JW602" and f.location is not None}
    probe = getattr(signals, "loop_keys", None)
    return [f for f in key_findings(list(signals.keys.reuses), list(signals.keys.baked))
            if f.code != "JW602" or f.location is None or (f.location.file, f.location.line) not in seen] + \
        (loop_key_findings(list(probe.keys)) if probe is not None else []) + \
        seeded_key_findings(list(getattr(signals.keys, "seeded", ())))


def _host_args(signals: Any) -> list[RuntimeFinding]:
    from .host_sync import host_argument_findings

    probe = signals.host_args
    return host_argument_findings(probe.confirmed() if hasattr(probe, "confirmed") else list(probe.arguments),
                                  getattr(signals, "sampler", None))


def _dispatch(signals: Any, events: list[CompileEvent], sizes: dict[str, tuple[int, int]]) -> list[RuntimeFinding]:
    from .dispatch_overhead import dispatch_findings

    sites = {(e.call_site.file, e.call_site.line): e.function for e in events if e.call_site is not None}
    return dispatch_findings(signals.sampler, sites, sizes)


def _host_callbacks(signals: Any, events: list[CompileEvent], traced: list[RuntimeFinding]) -> list[RuntimeFinding]:
    """JW506, for the functions whose callbacks are not inside a compiled loop (JW503 reported those)."""
    from .host_callbacks import host_callback_findings

    probe = getattr(signals, "host_callbacks", None)
    if probe is None:
        return []
    sites = {(e.call_site.file, e.call_site.line): e.function for e in events if e.call_site is not None}
    return host_callback_findings(list(probe.sites.values()), sites, {f.function for f in traced if f.code == "JW503"})


def _clocks(signals: Any) -> list[RuntimeFinding]:
    from .async_timing import async_timing_findings

    probe = getattr(signals, "clocks", None)
    return async_timing_findings(list(probe.sites.values())) if probe is not None else []


def _jit_disabled(signals: Any, events: list[CompileEvent]) -> list[RuntimeFinding]:
    from .jit_disabled import jit_disabled_findings

    return jit_disabled_findings(getattr(signals, "jit_disabled", None), len(events))


def _host_transfers(signals: Any) -> list[RuntimeFinding]:
    from .host_transfers import host_transfer_findings

    probe = getattr(signals, "host_transfers", None)
    return host_transfer_findings(list(probe.sites.values())) if probe is not None else []
