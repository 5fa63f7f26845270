"""The watch command: ``WatchSession`` and ``watch_program`` (the one lifecycle every front door uses),
and the Python API built on them, ``jitscope.watch`` and ``jitscope.no_recompile``.

``jitscope watch``, ``jitscope.watch()``, ``no_recompile``, the pytest plugin and the IPython magic
all record through ``WatchSession``; they only parse options, render, and choose exit codes.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

from .analyze import evidence_events, watch_summary
from .analyze.advice_scope import test_speed_only
from .analyze.budget import budget_violations
from .analyze.budget import describe as describe
from .analyze.dispatch import off_fast_path
from .analyze.divergence import Divergence, compare_sequences, unmatched_programs
from .analyze.duplicates import DuplicateTracker
from .analyze.reasons import ReasonHistory
from .analyze.runtime_findings import SLOW_COMPILE_SECONDS, RuntimeAnalyzer
from .analyze.slow_compile import name_slow_passes
from .analyze.taxonomy_findings import TaxonomyAnalyzer
from .analyze.tracer_errors import explain_program_error
from .collect import dispatch, monitoring
from .collect.distributed import PeerChannel, PeerWatch
from .collect.distributed import process_path as process_path
from .collect.runner import check_target as check_target
from .collect.runner import run_program
from .collect.runtime_signals import RuntimeSignals
from .collect.stall import Stall, StallWatchdog
from .collect.stall import stall_line as stall_line
from .collect.test_scope import running_test as running_test
from .collect.trace_evidence import TraceEvidenceCollector
from .collect.trace_probe import TraceProbe
from .collect.watch import WatchCollector
from .collect.watch import pid_path as pid_path
from .collect.watch_dump import DumpWriter
from .collect.watch_dump import check_dump_dir as check_dump_dir
from .errors import JitscopeError, UsageError
from .model import CompileEvent, Environment
from .results.watch import WatchResult

F = TypeVar("F", bound=Callable[..., Any])
PEER_TIMEOUT = 60.0  # seconds: a program this process compiled that a peer has not, after this, is named
PEER_WAIT = 10.0  # seconds process 0 waits at the end for its peers' last compiles before comparing


class WatchSession:
    """Record the user's compiles between ``start()`` and ``stop()`` and build the ``WatchResult``.

    Args:
        events: write each compile as a JSON line to this path as it happens.
        explain: turn on ``jax_explain_cache_misses`` while recording (JAX's text in each reason).
        listeners: called with each finished ``CompileEvent`` on the compiling thread; one that
            raises makes that jitted call raise (``no_recompile`` relies on this).
        seed_from_active: explain compiles against those already seen by enclosing sessions.
        max_compiles / fail_on_recompile: budgets, reported in the result's ``violations``.
        program: what was watched, for the result.
        findings: analyse each trace and compile for runtime findings (JWxxx, ``result.findings``).
        slow_compile: CPU seconds of a backend compile over which it may be reported as slow (JW402).
        stall_after: report a trace, lowering or compile still running after this many seconds, and
            again each time its running time doubles (``result.stalls``; ``on_stall`` gets each one as
            it happens, on the watchdog's thread). None: no watchdog.
        peers: in a ``jax.distributed`` job, publish each compile to the coordination service's key-value
            store and compare with the other processes (one session per process does: ``watch_program``
            and ``JITSCOPE=watch``; ``jitscope.watch()`` blocks and ``no_recompile`` only record).
        peer_timeout: in a ``jax.distributed`` job, each compile is published to the coordination
            service's key-value store; a program this process compiled that a peer has not compiled
            after this many seconds is named on stderr (the hang case). None: publish, never warn.
        compare_at_exit: compare the processes' compile sequences at interpreter exit (``JITSCOPE=watch``);
            ``watch_program`` compares when the program ends. Lines go to ``on_peer_line`` (stderr).
        trace_evidence: record which of the program's functions ran while JAX traced, with what each
            parameter was (``result.trace_evidence``: what ``jitscope lint --evidence`` reads;
            collect/trace_evidence.py). Costs only while JAX traces; off by default. A JAX without the
            trace hook: one ``jitscope: note:`` line on stderr and ``result.trace_evidence`` stays None.
        exclusive: ``events`` is a per-process name in a shared directory: created with ``O_EXCL |
            O_NOFOLLOW`` (``JITSCOPE=watch``).
        lazy_events: create ``events`` at the first compile, not at ``start`` (``JITSCOPE=watch``: a
            process that compiles nothing writes nothing).
    """

    def __init__(self, *, events: str | os.PathLike[str] | None = None, explain: bool = True,
                 listeners: Iterable[Callable[[CompileEvent], None]] = (), seed_from_active: bool = False,
                 max_compiles: int | None = None, fail_on_recompile: bool = False, program: str = "",
                 findings: bool = True, slow_compile: float = SLOW_COMPILE_SECONDS,
                 stall_after: float | None = None, on_stall: Callable[[Stall], None] | None = None,
                 peers: bool = False, peer_timeout: float | None = PEER_TIMEOUT, compare_at_exit: bool = False,
                 on_peer_line: Callable[[str], None] | None = None,
                 on_duplicate: Callable[[Any], None] | None = None, exclusive: bool = False,
                 lazy_events: bool = False, trace_evidence: bool = False) -> None:
        if max_compiles is not None and max_compiles < 0:
            raise UsageError(f"max_compiles must be >= 0, got {max_compiles}")
        if not slow_compile >= 0:
            raise UsageError(f"slow_compile must be >= 0 seconds, got {slow_compile}")
        if stall_after is not None and not stall_after > 0:
            raise UsageError(f"stall_after must be > 0 seconds, got {stall_after}")
        self.watchdog = StallWatchdog(stall_after, on_stall) if stall_after is not None else None
        self.analyzer = RuntimeAnalyzer(slow_compile) if findings else None
        self._probe = TraceProbe() if findings else None
        self._dispatch = dispatch.DispatchProbe() if findings else None  # JW501: calls off the fast path
        # The taxonomy's other classes (docs/pitfalls.md): JAX's errors and warnings at the program's lines,
        # host reads, PRNG keys, trace contexts (JW102-JW107, JW405-JW408, JW502-JW507, JW601-JW604).
        self._signals = RuntimeSignals() if findings else None
        self.taxonomy = TaxonomyAnalyzer() if findings else None
        taxonomy = self.taxonomy
        self.history = ReasonHistory()
        if seed_from_active:
            for sub in monitoring.active_subscribers():
                if isinstance(sub, WatchCollector):
                    self.history.seed(sub.events)
        analyzer = self.analyzer
        duplicates = DuplicateTracker()

        def observe(raw: Any, event: CompileEvent, kind: str) -> None:
            analyzer.observe(event, kind, raw.live)  # type: ignore[union-attr]
            taxonomy.observe(event, kind, raw.live)  # type: ignore[union-attr]
            if kind == "compile":  # JW403/JW404: this program (or all but its constants) compiled before
                try:
                    entry = raw.live.get("program")
                    found = duplicates.observe(event, list(entry.constants) if entry is not None else None,
                                             raw.live.get("context"), raw.live.get("checks"))
                except Exception:  # noqa: BLE001 - an analysis must never break the user's program
                    found = None
                    analyzer.failures += 1  # type: ignore[union-attr]
                if found is not None:
                    analyzer.add(found)  # type: ignore[union-attr]
                    pending[event.index] = found  # said after the compile's own --live line

        pending: dict[int, Any] = {}

        def say_duplicate(event: CompileEvent) -> None:
            found = pending.pop(event.index, None)
            if found is not None and on_duplicate is not None:  # --live: as it happens, not only at the end
                try:
                    on_duplicate(found)
                except Exception:  # noqa: BLE001 - a broken display must not break the program
                    pass

        listeners = [*listeners, say_duplicate] if on_duplicate is not None and analyzer is not None else listeners
        self.collector = WatchCollector(events_path=events, explain=explain, listeners=list(listeners),
                                        classify=self.history.classify,
                                        observe=observe if analyzer is not None else None,
                                        on_process=self._on_process, exclusive=exclusive, lazy=lazy_events)
        self.peer_timeout = peer_timeout
        self.share_with_peers = peers
        self.compare_at_exit = compare_at_exit
        self.on_peer_line = on_peer_line or _stderr_line
        self.peers: PeerChannel | None = None
        self._peer_watch: PeerWatch | None = None
        self._warned: set[tuple] = set()
        self.max_compiles = max_compiles
        self.fail_on_recompile = fail_on_recompile
        self.program = program
        self.evidence = TraceEvidenceCollector(program) if trace_evidence else None
        if self.evidence is not None and (why := TraceEvidenceCollector.unavailable()) is not None:
            # a JAX without the hook: say so once, record nothing (no half evidence that reads as complete)
            print(f"jitscope: note: trace evidence not recorded: {why}", file=sys.stderr)
            self.evidence = None

    def start(self) -> WatchSession:
        """Begin (or resume) recording."""
        self.collector.start()
        if self.evidence is not None and self.collector.running:
            self.evidence.start()
        if self._probe is not None and self.collector.running:
            self._probe.install()
        if self._dispatch is not None and self.collector.running:
            self._dispatch.install()
        if self._signals is not None and self.collector.running:
            self._signals.install()
            self._signals.jit_disabled.program = self.program  # the file whose line names jax_disable_jit
        if self.watchdog is not None and not self.watchdog.available:
            self.watchdog.t0 = self.collector.started_at
            self.watchdog.start()
        return self

    def stop(self) -> None:
        """Stop recording; compiles interrupted mid-way are recorded first."""
        try:
            self.collector.stop()
        finally:
            if self._probe is not None:
                self._probe.uninstall()
            if self._dispatch is not None:
                self._dispatch.uninstall()
            if self.evidence is not None:
                self.evidence.stop()
            if self._signals is not None:
                self._signals.uninstall()
            if self.watchdog is not None:
                self.watchdog.stop()
            if self._peer_watch is not None:
                self._peer_watch.stop()  # publishing stops with recording; the hang check with it

    @property
    def events(self) -> list[CompileEvent]:
        """The compiles recorded so far."""
        return list(self.collector.events)

    # -- a jax.distributed job: publish, warn, compare ---------------------------
    def _on_process(self, index: int, count: int) -> None:
        """The collector learnt the process index (after ``jax.distributed.initialize``)."""
        channel = PeerChannel.open() if self.share_with_peers else None
        if channel is None:
            return
        self.peers = channel
        for e in self.collector.events:
            channel.publish(e)
        self.collector.listeners.append(channel.publish)
        if self.peer_timeout:
            interval = min(1.0, self.peer_timeout / 4)
            self._peer_watch = PeerWatch(channel, interval, self._check_peers).start()
        if self.compare_at_exit:
            import atexit

            # Registered now, after JAX's own exit handler (it shuts the service down), so it runs first.
            atexit.register(self.compare_peers, agreement=False)

    def _check_peers(self, channel: PeerChannel, sequences: dict[int, list[CompileEvent]], now: float) -> None:
        from .analyze.divergence import program_key
        from .render.divergence_text import hang_line

        for event, lacking, since in unmatched_programs(list(channel.published), channel.index, channel.count,
                                                         sequences, now, self.peer_timeout or 0.0):
            key = program_key(event)
            if key not in self._warned:
                self._warned.add(key)
                self.on_peer_line(hang_line(channel.index, event, lacking, since, sequences))

    def compare_peers(self, wait: float = PEER_WAIT, agreement: bool = True) -> list[Divergence] | None:
        """At the end of a ``jax.distributed`` job: say this process is done; on process 0, wait (at
        most ``wait`` seconds) for the others, compare every process's compile sequence and print the
        divergences (or, with ``agreement``, one line saying there is none). None elsewhere, or
        when this is not a multi-process job. Never raises."""
        try:
            self.collector.note_process()
            channel = self.peers
            if channel is None:
                return None
            if self._peer_watch is not None:
                self._peer_watch.stop()
            if not channel.alive():
                if channel.index == 0:
                    self.on_peer_line("jitscope: the program shut jax.distributed down before its end: its compiles "
                                      "were compared live only (`jitscope merge` compares the per-process files)")
                return None
            channel.finish()
            if channel.index != 0:
                return None
            from .render.divergence_text import agreement_line, divergence_line

            missing = channel.wait_for_peers(wait)
            sequences = channel.sequences()
            if missing:  # a peer still running may compile more: only what all have published is compared
                cut = min(len(sequences.get(p, [])) for p in missing)
                sequences = {p: seq[:cut] for p, seq in sequences.items()}
            found = compare_sequences(sequences)
            late = f" ({_procs(missing)} not finished after {wait:g} s: compared what they published)" \
                if missing else ""
            for d in found:
                self.on_peer_line(f"jitscope: {divergence_line(d)}{late}")
            if not found and agreement:
                self.on_peer_line(f"jitscope: {agreement_line(sequences)}{late}")
            return found
        except Exception as e:  # noqa: BLE001 - a comparison must never cost the program its exit
            self.on_peer_line(f"jitscope: could not compare the processes' compiles: {type(e).__name__}: {e}")
            return None

    @property
    def uncompiled(self) -> list[tuple[str, CompileEvent]]:
        """Traces and lowerings of user functions that compiled nothing, as (kind, event); kind is
        ``trace`` (``eval_shape``, ``make_jaxpr``), ``lowering`` (``.lower()`` without ``.compile()``)
        or ``failed_trace`` (the trace raised). Never counted as compiles, never against a budget."""
        return list(self.collector.uncompiled)

    def result(self, *, argv: list[str] | None = None, exit_code: int | None = None,
               capture_env: bool = True) -> WatchResult:
        """The run so far as a ``WatchResult`` (safe to call while recording)."""
        c = self.collector
        process = c.note_process()
        events = self.events
        wall = c.wall_seconds
        enabled, directory, min_seconds = c.cache_info
        plan = watch_summary.plan_fixes(events)
        findings = self._findings()
        return WatchResult(
            env=Environment.capture() if capture_env else Environment(), program=self.program,
            argv=list(argv or []), exit_code=exit_code, wall_seconds=wall, events=events,
            functions=watch_summary.summarize_functions(events, wall),
            fixes=plan.fixes, fixes_total=plan.total if plan.fixes else None,
            expected_recompiles=plan.expected, internal_compiles=c.internal_compiles,
            internal_seconds=c.internal_seconds,
            internal_routines=watch_summary.top_routines(dict(c.internal_routines)),
            persistent_cache=watch_summary.persistent_cache_info(events, enabled, directory, min_seconds,
                                                                 c.cache_seconds_saved),
            max_compiles=self.max_compiles, fail_on_recompile=self.fail_on_recompile,
            violations=budget_violations(events, self.max_compiles, self.fail_on_recompile),
            programs=list(c.programs.values()), findings=findings, stalls=list(self.watchdog.stalls) if self.watchdog else [],
            inspect_command=_slowest_compile_command(events),
            process_index=process[0] if process else None, process_count=process[1] if process else None,
            started_at=c.started_at or None,
            trace_evidence=self._trace_evidence(findings))

    def _trace_evidence(self, findings: list) -> Any:
        """The trace evidence so far, with what the run observed at the user's lines (its findings' events)."""
        if self.evidence is None:
            return None
        found = self.evidence.evidence()
        found.events = evidence_events.events(findings, self.events)
        if self._signals is not None:  # errors JAX raised outside a trace (caught or not): no watch finding
            found.events = evidence_events.error_events(list(self._signals.errors.errors), found.events)
        return found

    def _findings(self) -> list:
        if self.analyzer is None:
            return []
        self.analyzer.check_stale(self.collector.wall_seconds)
        found = list(self.analyzer.findings)
        if self._dispatch is not None:
            found += off_fast_path(list(self._dispatch.functions.values()), dispatch.fast_call_seconds,
                                   self._dispatch.t0 or 0.0, wall_seconds=self.collector.wall_seconds,
                                   effect_call=dispatch.effect_call_seconds)
        if self.taxonomy is not None:
            c = self.collector
            found += self.taxonomy.finish(self._signals, self.events, t0=c.started_at or 0.0,
                                          wall_seconds=c.wall_seconds, cache_dir=c.cache_info[1])
        tests = {e.test for e in self.events if e.test}
        if tests:  # under pytest: a cost at a test's own line, small for a test run, is not advice
            found = [f for f in found if not test_speed_only(f, tests)]
        return sorted(found, key=lambda f: f.timestamp)


def watch_running() -> bool:
    """A watch is receiving compiles in this process now (the pytest plugin asks: is the suite the watched
    program?)."""
    return bool(monitoring.active_subscribers())


def watch_program(target: str, args: list[str], *, module: bool = False,
                  events: str | os.PathLike[str] | None = None, explain: bool = True,
                  max_compiles: int | None = None, fail_on_recompile: bool = False,
                  listeners: Iterable[Callable[[CompileEvent], None]] = (),
                  dump: str | os.PathLike[str] | None = None, findings: bool = True,
                  slow_compile: float = SLOW_COMPILE_SECONDS, stall_after: float | None = None,
                  on_stall: Callable[[Stall], None] | None = None,
                  peer_timeout: float | None = PEER_TIMEOUT,
                  warmup: str | os.PathLike[str] | None = None,
                  on_duplicate: Callable[[Any], None] | None = None,
                  trace_evidence: bool = False) -> WatchResult:
    """Run a script (or ``-m`` module) as ``python`` would, under watch; its ``WatchResult``.

    The program's exit status is ``result.exit_code``; a program that died of a jit error (a
    tracer error, an unhashable static argument) gets the cause and fix in ``result.crash``.
    The working directory is restored afterwards (the program may chdir). ``listeners`` are
    called with each compile as it finishes (``jitscope watch --live`` prints from one).
    ``dump``: a directory for each user compile's jaxpr, StableHLO, optimised HLO and XLA pass
    times (``passes.json``: each compile runs under ``jax.profiler``), with ``index.json``
    (``result.dump``).
    ``findings`` / ``slow_compile``: runtime findings (``result.findings``), as for ``WatchSession``;
    ``stall_after`` / ``on_stall``: the stall watchdog (``result.stalls``), likewise.
    ``on_duplicate``: called with each JW403/JW404 finding as its compile finishes (``--live``).
    ``warmup``: a warm-up script run first in this process, as ``python SCRIPT`` would run it, recorded
    apart (``result.warmup``); the result's events are then the compiles it missed, explained against the
    warm-up's own, and each miss is a budget violation (``jitscope watch --warmup``: exit 3).
    ``trace_evidence``: record which of the program's functions ran under a JAX trace
    (``result.trace_evidence``, ``jitscope watch --trace-evidence``), as for ``WatchSession``.
    In a ``jax.distributed`` job the processes' compile sequences are compared when the program ends
    (process 0 prints the divergence, docs/multiprocess.md); ``peer_timeout`` as for ``WatchSession``.

    Raises:
        UsageError: no such script or module, an unwritable events file, a negative budget.
    """
    check_target(target, module)
    if warmup is not None:
        check_target(os.fspath(warmup), False)
    writer = DumpWriter(os.fspath(dump), passes=_passes_record) if dump is not None else None
    if writer is not None:
        listeners = [*listeners, writer.on_compile]
    session = WatchSession(events=events, explain=explain, max_compiles=max_compiles,
                           fail_on_recompile=fail_on_recompile, listeners=listeners,
                           program=f"-m {target}" if module else target, findings=findings,
                           slow_compile=slow_compile, stall_after=stall_after, on_stall=on_stall,
                           peers=True, peer_timeout=peer_timeout, on_duplicate=on_duplicate,
                           trace_evidence=trace_evidence)
    cwd = os.getcwd()
    failure: list[BaseException] = []
    check = None
    if warmup is not None:
        from .collect.warmup_check import WarmupCheck

        check = WarmupCheck(os.fspath(warmup), WatchSession(explain=explain, findings=False, program=os.fspath(warmup)))
        check.before(session)
    if writer is not None:
        writer.start()
    session.start()
    try:
        code = run_program(target, args, module=module, failure=failure,
                           at_main_guard=check.at_main_guard(session) if check is not None else None)
    finally:
        session.stop()
        dump_index = writer.stop() if writer is not None else None
        try:
            os.chdir(cwd)  # call sites in the summary are shown relative to the starting cwd
        except OSError:
            pass
    session.compare_peers()
    result = session.result(argv=[target, *args], exit_code=code)
    result.dump = dump_index
    if dump_index is not None:
        name_slow_passes(result.findings, _dumped_passes(dump_index))
    if check is not None:
        check.finish(result)
    if failure:
        result.crash = explain_program_error(failure[0])
        if result.trace_evidence is not None:  # what the run died of, at the user's line, for lint --evidence
            from .collect.error_chain import field_declared, handed_to_jax, program_chain

            result.trace_evidence.events = evidence_events.add_crash(result.trace_evidence.events, result.crash,
                                                                        str(failure[0]), failure[0],
                                                                        program_chain(failure[0]),
                                                                        field_declared(failure[0]),
                                                                        handed_to_jax(failure[0]))
    return result


def _stderr_line(line: str) -> None:
    import contextlib
    import sys

    with contextlib.suppress(OSError, ValueError):  # a closed stderr never reaches the program
        print(line, file=sys.stderr, flush=True)


def _procs(ps: list[int]) -> str:
    return f"process {ps[0]}" if len(ps) == 1 else "processes " + ", ".join(map(str, ps))


def _slowest_compile_command(events: list[CompileEvent]) -> Any:
    """The ``jitscope inspect`` call that explains the slowest compile (None when none can be written exactly)."""
    from .analyze.inspect_command import for_slowest_compile

    try:
        return for_slowest_compile(events, os.getcwd())
    except Exception:  # noqa: BLE001 - a hint must never cost the user their summary
        return None


def _dumped_passes(dump_index: Any) -> Callable[[int], dict | None]:
    """``watch --dump``: a compile's ``passes.json`` by compile index (None where not written)."""
    files = {c.index: c.files.get("passes") for c in dump_index.compiles}

    def passes_of(index: int) -> dict | None:
        name = files.get(index)
        if not name:
            return None
        try:
            with open(os.path.join(dump_index.directory, name), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None
    return passes_of


def _passes_record(trace: Any) -> dict[str, Any] | None:
    """``watch --dump``: one compile's profiler events as a ``CompilePasses`` dict (None when unavailable)."""
    from .analyze.compile_passes import compile_passes

    passes = compile_passes(trace)
    return passes.to_dict() if passes.status == "ok" else None


def runtime_catalog(code: str | None = None, markdown: bool = False) -> str:
    """Watch's runtime finding codes (JWxxx): a table, one code's page, or the Markdown catalog
    (docs/runtime-findings.md). Raises ``UsageError`` for an unknown code."""
    from .analyze import runtime_codes

    if markdown:
        return runtime_codes.markdown()
    if code:
        page = runtime_codes.page_text(code)
        if page is None:
            raise UsageError(f"unknown runtime finding code '{code}' (see `jitscope rules --runtime`)")
        return page
    return runtime_codes.table()


def duplicate_line(finding: Any) -> str:
    """The ``--live`` line for a duplicate compile (JW403/JW404) as it happens."""
    return f"jitscope: {finding.code} {finding.function}: {finding.message}"


def finding_line(finding: Any) -> str:
    """One runtime finding on one line, with its place (``pytest --jitscope``'s per-test summary)."""
    loc = finding.location
    where = f" at {os.path.basename(loc.file)}:{loc.line}" if loc is not None else ""
    return f"{finding.code} {finding.function}{where}: {finding.message}"


def live_line(event: CompileEvent) -> str | None:
    """The ``--live`` line for a compile as it happens: one per recompile, None for a first compile."""
    cat = event.reason.category if event.reason else "other"
    if cat == "first_compile":
        return None
    return f"jitscope: recompile #{event.index} {describe(event)}"


class RecompileError(JitscopeError):
    """Raised by ``no_recompile`` at the first forbidden compile; ``.event`` is the CompileEvent."""

    def __init__(self, message: str, event: CompileEvent) -> None:
        super().__init__(message)
        self.event = event


class RecompileWarning(UserWarning):
    """Warned by ``no_recompile(on_compile="warn")`` for each forbidden compile."""


class watch:  # noqa: N801 - used like a function: ``with jitscope.watch() as w``
    """Record every compile of your jitted functions inside a block, a function, or a test.

    Context manager::

        with jitscope.watch() as w:
            train(steps=100)
        print(w.summary)              # the rich terminal summary, as text
        w.result().save("run.json")   # the WatchResult (events, per-function totals, fixes)

    Decorator: ``@jitscope.watch()`` watches every call of the function, accumulating into
    the same session, reachable as ``fn.jitscope_watch``::

        @jitscope.watch()
        def train(): ...
        train(); train()
        train.jitscope_watch.events

    Args:
        events: write each compile as a JSON line to this path as it happens (flushed per line).
        explain: turn on ``jax_explain_cache_misses`` while watching and keep JAX's text in each
            event's ``reason.explanation`` (its log lines are captured, not printed).
        print_summary: print the summary when the block or decorated call ends.
        max_compiles / fail_on_recompile: budgets recorded in the result's ``violations``.
        findings: report runtime findings (failed traces, trace-time side effects, captured
            constants, unrolled loops, slow compiles, calls off the C++ dispatch fast path) in
            ``result().findings``; see docs/runtime-findings.md.
        slow_compile: CPU seconds of a backend compile over which it may be reported as slow (JW402).
        trace_evidence: record which of your functions ran under a JAX trace, and which parameters
            were tracers (``result().trace_evidence``, read by ``jitscope lint --evidence``). A path
            also writes it there (a trace-evidence file) when the block ends. Off by default.
    """

    def __init__(self, *, events: str | os.PathLike[str] | None = None, explain: bool = True,
                 print_summary: bool = False, max_compiles: int | None = None,
                 fail_on_recompile: bool = False, program: str = "", findings: bool = True,
                 slow_compile: float = SLOW_COMPILE_SECONDS,
                 trace_evidence: bool | str | os.PathLike[str] = False) -> None:
        self._evidence_path = None if isinstance(trace_evidence, bool) else os.path.abspath(trace_evidence)
        self._session = WatchSession(events=events, explain=explain, max_compiles=max_compiles,
                                     fail_on_recompile=fail_on_recompile, program=program or "<python block>",
                                     findings=findings, slow_compile=slow_compile,
                                     trace_evidence=bool(trace_evidence) or self._evidence_path is not None)
        self.print_summary = print_summary
        self.max_compiles = max_compiles
        self.fail_on_recompile = fail_on_recompile
        self.program = self._session.program
        self._depth = 0
        self._lock = threading.Lock()
        self._final: WatchResult | None = None

    def __enter__(self) -> watch:
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._final = None
                self._session.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth:
                return
            self._session.stop()
            self._final = self._make_result()
        if self._evidence_path is not None and self._final.trace_evidence is not None:
            self._final.trace_evidence.save(self._evidence_path)
        if self.print_summary:
            from .render import show

            show(self._final)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        wrapper.jitscope_watch = self  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    def _make_result(self) -> WatchResult:
        return self._session.result()

    @property
    def events(self) -> list[CompileEvent]:
        """The compiles recorded so far (live while watching)."""
        return self._session.events

    @property
    def uncompiled(self) -> list[tuple[str, CompileEvent]]:
        """Traces and lowerings that compiled nothing, as (kind, event): ``trace``, ``lowering``,
        ``failed_trace``. Shown here; never counted as compiles or against a budget."""
        return self._session.uncompiled

    def result(self) -> WatchResult:
        """The ``WatchResult``: final after the block, a snapshot while still watching."""
        return self._final if self._final is not None and not self._depth else self._make_result()

    @property
    def summary(self) -> str:
        """The terminal summary as plain text."""

        from .render import render

        return render(self.result(), "console", width=120)


class no_recompile:  # noqa: N801
    """Fail (or warn) at the first compile of a user's jitted function inside the block.

    Like PyTorch's ``set_stance("fail_on_recompile")``, for a region: a training loop after
    warm-up, a serving path. Only functions the *user* jitted count: JAX compiles small
    internal programs for eager ops (``jnp.ones(3)`` outside jit) and for its own jitted
    ``jnp`` routines; those are defined inside the jax package and are ignored.

    Semantics: every compile of a user function inside the block is forbidden. With
    ``allow_first=True`` a function's first compile *as known to jitscope* is allowed (for a
    block that includes warm-up); compiles seen by an enclosing ``watch`` (or ``jitscope watch``,
    or the pytest plugin) count as known, so a function warmed up there and recompiling here fails.

    Usable as a context manager or a decorator::

        step(x)                         # warm-up
        with jitscope.no_recompile():
            for batch in data:
                step(batch)             # RecompileError here if a batch has a new shape

    Args:
        on_compile: ``"raise"`` (``RecompileError`` from the jitted call that compiled, after
            the compile) or ``"warn"`` (``RecompileWarning`` per compile; the program continues).
        allow_first: allow each function's first compile.
    """

    def __init__(self, on_compile: Literal["raise", "warn"] = "raise", allow_first: bool = False) -> None:
        if on_compile not in ("raise", "warn"):
            raise UsageError(f"on_compile must be 'raise' or 'warn', not {on_compile!r}")
        self.on_compile = on_compile
        self.allow_first = allow_first
        self._session: WatchSession | None = None
        self.violations: list[CompileEvent] = []

    def _check(self, event: CompileEvent) -> None:
        cat = event.reason.category if event.reason else "other"
        if self.allow_first and cat == "first_compile":
            return
        self.violations.append(event)
        hint = "" if self.allow_first or cat != "first_compile" else "; pass allow_first=True to allow warm-up"
        msg = f"no_recompile: {describe(event)}{hint}"
        if self.on_compile == "raise":
            raise RecompileError(msg, event)
        site = event.call_site
        if site is not None:
            warnings.warn_explicit(msg, RecompileWarning, site.file, site.line)
        else:
            warnings.warn(msg, RecompileWarning, stacklevel=2)

    def __enter__(self) -> no_recompile:
        self.violations = []
        # Seeded with what enclosing watches saw, so reasons compare with earlier compiles.
        self._session = WatchSession(listeners=[self._check], seed_from_active=True, findings=False).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self._session.stop()
            self._session = None

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with no_recompile(self.on_compile, self.allow_first):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
