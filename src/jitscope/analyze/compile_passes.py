"""Compile anatomy: which XLA passes and pipelines one backend compile spent its seconds in.

Input: the profiler's host events of one compile (``collect.compile_passes.CompileTrace``). Each
thread's events nest (a pipeline holds its passes, ``CpuCompiler::RunBackend`` holds codegen), so the
analysis is by nesting, never by backend-specific names:

1. The *window* is JAX's ``backend_compile_and_load`` annotation (``backend_compile`` before 0.7)
   on the calling thread; without it, every event.
2. The *compiling thread* is the thread whose outermost events inside the window cover the most
   time (on CPU a ``tf_PjRtCompilerThreadPool`` thread running ``PjRtCpuClient::Compile``; where
   the backend compiles on the calling thread, the annotation's children).
3. Every event of that thread's trees gets its *self* time (its duration minus its children's), and
   self times are summed by name: a partition, so the passes add up exactly to the time the
   outermost events cover (``traced_s``). The outermost events' children are the *pipelines*
   (inclusive times, plus the outermost event's own self time), another exact partition.
4. Events on other threads inside the window (``tf_xla-cpu-codegen`` on CPU: fusions compiled in
   parallel) are CPU seconds that overlap the wall time above: reported apart, never added.

``traced_s`` is compared with JAX's ``/jax/core/compile/backend_compile_duration`` span of the same
compile (``coverage``). The rest of the window is split in two: ``untraced_s``, time on the compiling
thread between the moment it picked the compile up (a zero-length ``ThreadpoolListener::StartRegion``
marker) and XLA's first traced event (on CPU, PjRt converting the StableHLO module to HLO,
``MlirToXlaComputation``, which has no trace event), and ``outside_s``, everything else (JAX and PjRt
on the calling thread, handing the compile over, loading the executable).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record

ANCHORS = ("backend_compile_and_load", "backend_compile")  # JAX's annotation of the backend compile
PARALLEL_KEEP = 15  # parallel-thread passes kept by name; the rest summed as "(other)"


@dataclass
class PassTime(Record):
    """Seconds spent in one pass (or pipeline, or backend step) of one compile.

    ``seconds`` is self time for passes (children excluded: a partition) and inclusive time for
    pipelines; ``share`` is of the backend compile time (of the traced time when JAX reported
    none); ``count`` how many times the name ran; ``pipeline`` the pipeline it ran in when all runs
    were in one, else ``""``.
    """

    name: str
    seconds: float
    share: float
    count: int = 1
    pipeline: str = ""


@dataclass
class CompilePasses(Record):
    """Where one backend compile's time went, pass by pass; ``status`` ``"ok"`` or ``"unavailable"``.

    ``passes`` (all of them, by self time, descending) and ``pipelines`` each sum to ``traced_s``;
    ``coverage`` is ``traced_s / backend_compile_s``. ``parallel_s`` is CPU time on ``parallel_threads``
    other compiler threads during the compile, overlapping the wall time (not part of the sum).
    """

    status: str = "ok"
    reason: str = ""  # why "unavailable", one line
    backend_compile_s: float | None = None
    traced_s: float = 0.0
    untraced_s: float = 0.0  # compiling thread, before XLA's first traced event (module conversion)
    outside_s: float = 0.0
    coverage: float | None = None
    compiler_thread: str = ""
    root: str = ""  # the outermost event(s) on the compiling thread, e.g. PjRtCpuClient::Compile
    passes: list[PassTime] = field(default_factory=list)
    pipelines: list[PassTime] = field(default_factory=list)
    parallel_s: float = 0.0
    parallel_threads: int = 0
    parallel_passes: list[PassTime] = field(default_factory=list)

    def top(self, n: int = 5) -> list[PassTime]:
        """The ``n`` passes that took longest (self time)."""
        return self.passes[:n]


def unavailable(reason: str, backend_compile_s: float | None = None) -> CompilePasses:
    """A ``CompilePasses`` that says in one line why there is no breakdown."""
    return CompilePasses(status="unavailable", reason=reason, backend_compile_s=backend_compile_s)


@dataclass
class _Node:
    name: str
    start: float
    end: float
    children: list[_Node] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return self.end - self.start

    def self_time(self) -> float:
        return max(0.0, self.duration - sum(c.duration for c in self.children))


def _forest(events: list[Any]) -> list[_Node]:
    """Nest one thread's events by containment (a TraceMe scope holds the ones it opened)."""
    roots: list[_Node] = []
    stack: list[_Node] = []
    for ev in sorted(events, key=lambda e: (e.start_ns, -e.duration_ns)):
        node = _Node(ev.name, ev.start_ns, ev.start_ns + ev.duration_ns)
        while stack and node.start >= stack[-1].end:
            stack.pop()
        if stack:
            # A child never outlasts its parent; clip rounding overlaps so self times stay >= 0.
            node.end = min(node.end, stack[-1].end)
            stack[-1].children.append(node)
        else:
            roots.append(node)
        stack.append(node)
    return roots


def _walk(node: _Node, pipeline: str):  # type: ignore[no-untyped-def]
    yield node, pipeline
    for child in node.children:
        yield from _walk(child, pipeline)


def clean_name(name: str, module_name: str = "") -> str:
    """A pass name without the module it ran on: ``simplification (jit_f)`` -> ``simplification``,
    ``HLO Transforms:jit_f`` (GPU) -> ``HLO Transforms``."""
    for pattern in (r"^(.*[^\s(])\s*\(([^()]*)\)$", r"^(.*\S)\s*:\s*([\w.\-]+)$"):  # "x (jit_f)", "x:jit_f"
        m = re.match(pattern, name)
        if m and (m.group(2) == module_name or re.match(r"^(jit|pmap|xla_computation)_", m.group(2))):
            return m.group(1)
    return name


def compile_passes(trace: Any, backend_compile_s: float | None = None, module_name: str = "") -> CompilePasses:
    """Partition one compile's traced time into passes and pipelines (see the module docstring).

    ``trace`` is a ``collect.compile_passes.CompileTrace``; ``backend_compile_s`` overrides its
    recorded span (watch passes the span its ``CompileEvent`` holds).
    """
    backend = backend_compile_s if backend_compile_s is not None else trace.backend_compile_s
    module_name = module_name or trace.module_name
    if trace.error:
        return unavailable(trace.error, backend)
    by_line: dict[int, list[Any]] = defaultdict(list)
    markers: dict[int, list[float]] = defaultdict(list)  # zero-length events: where threads picked work up
    for ev in trace.events:
        if ev.duration_ns > 0:
            by_line[ev.line].append(ev)
        else:
            markers[ev.line].append(ev.start_ns)
    forests = {line: _forest(evs) for line, evs in by_line.items()}
    anchor, anchor_line = _anchor(forests)
    lo, hi = (anchor.start, anchor.end) if anchor else (-float("inf"), float("inf"))

    def tops(line: int) -> list[_Node]:
        nodes = anchor.children if anchor is not None and line == anchor_line else forests[line]
        return [n for n in nodes if n.end > lo and n.start < hi and n is not anchor]

    candidates = {line: tops(line) for line in forests}
    candidates = {line: nodes for line, nodes in candidates.items() if nodes}
    if not candidates:
        return unavailable("no XLA compile in the profile (a persistent-cache load, or a backend that traces "
                           "nothing)", backend)
    main = max(candidates, key=lambda line: sum(n.duration for n in candidates[line]))
    roots = candidates[main]
    traced_ns = sum(n.duration for n in roots)
    share_of = (backend * 1e9) if backend else traced_ns

    passes: dict[str, list[Any]] = {}  # name -> [self ns, count, pipelines]
    pipelines: dict[str, float] = defaultdict(float)
    for root in roots:
        wrappers, pipes = _pipelines(root)
        labelled = [(w, "") for w in wrappers]
        for pipe in pipes:
            name = clean_name(pipe.name, module_name)
            pipelines[name] += pipe.duration
            labelled += [(node, "" if node is pipe else name) for node, _ in _walk(pipe, name)]
        for wrapper in wrappers:
            pipelines[f"{clean_name(wrapper.name, module_name)} (self)"] += wrapper.self_time()
        for node, pipe_name in labelled:
            entry = passes.setdefault(clean_name(node.name, module_name), [0.0, 0, set()])
            entry[0] += node.self_time()
            entry[1] += 1
            entry[2].add(pipe_name)

    parallel_lines = [line for line in candidates if line not in (main, anchor_line)]
    par_self: dict[str, list[Any]] = {}
    parallel_ns = 0.0
    for line in parallel_lines:
        for root in candidates[line]:
            parallel_ns += root.duration
            for node, _ in _walk(root, ""):
                entry = par_self.setdefault(clean_name(node.name, module_name), [0.0, 0, set()])
                entry[0] += node.self_time()
                entry[1] += 1

    def rows(table: dict[str, list[Any]]) -> list[PassTime]:
        out = [PassTime(name, ns / 1e9, ns / share_of if share_of else 0.0, count,
                        next(iter(pipes)) if len(pipes) == 1 else "")
               for name, (ns, count, pipes) in table.items()]
        return sorted(out, key=lambda p: (-p.seconds, p.name))

    par_rows = rows(par_self)
    if len(par_rows) > PARALLEL_KEEP:
        rest = par_rows[PARALLEL_KEEP:]
        par_rows = par_rows[:PARALLEL_KEEP] + [PassTime("(other)", sum(p.seconds for p in rest),
                                                        sum(p.share for p in rest), sum(p.count for p in rest))]
    pipe_rows = sorted((PassTime(name, ns / 1e9, ns / share_of if share_of else 0.0)
                        for name, ns in pipelines.items() if ns > 0), key=lambda p: (-p.seconds, p.name))
    untraced_ns = 0.0
    if anchor is not None and main != anchor_line:
        first = min(n.start for n in roots)
        picked_up = [t for t in markers.get(main, []) if lo <= t <= first]
        untraced_ns = first - min(picked_up) if picked_up else 0.0
    outside_ns = max(0.0, anchor.duration - traced_ns - untraced_ns) if anchor is not None else 0.0
    return CompilePasses(
        backend_compile_s=backend, traced_s=traced_ns / 1e9, untraced_s=untraced_ns / 1e9,
        outside_s=outside_ns / 1e9,
        coverage=(traced_ns / 1e9) / backend if backend else None,
        compiler_thread=_thread_name(trace.lines[main]) if main < len(trace.lines) else "",
        root=", ".join(dict.fromkeys(clean_name(r.name, module_name) for r in roots)),
        passes=rows(passes), pipelines=pipe_rows, parallel_s=parallel_ns / 1e9,
        parallel_threads=len(parallel_lines), parallel_passes=par_rows)


DOMINANT = 0.9  # a step holding this share of its parent is opened up in the pipelines view


def _pipelines(root: _Node, depth: int = 4) -> tuple[list[_Node], list[_Node]]:
    """(wrappers, pipelines): ``root``'s children are its pipelines, and with the wrappers' self times
    they partition ``root`` exactly. A child holding nearly all of it (a wrapper such as GPU's
    ``PJRT_Client_Compile``, CPU's ``RunBackend`` on a codegen-bound compile) is opened up in turn
    (it becomes a wrapper, its children pipelines), so the view shows where the time goes."""
    wrappers, pipes = [root], []
    for child in root.children:
        if depth and child.children and child.duration >= DOMINANT * root.duration:
            more_wrappers, more_pipes = _pipelines(child, depth - 1)
            wrappers += more_wrappers
            pipes += more_pipes
        else:
            pipes.append(child)
    return wrappers, pipes


def _thread_name(line: str) -> str:
    """``tf_PjRtCompilerThreadPool/2873762896551078287`` -> ``tf_PjRtCompilerThreadPool`` (ids vary per run)."""
    return re.sub(r"/-?\d+$", "", line)


def _anchor(forests: dict[int, list[_Node]]) -> tuple[_Node | None, int]:
    """JAX's annotation of the backend compile (the longest, if several), and its line."""
    best: tuple[_Node | None, int] = (None, -1)
    for line, roots in forests.items():
        for root in roots:
            for node, _ in _walk(root, ""):
                if node.name in ANCHORS and (best[0] is None or node.duration > best[0].duration):
                    best = (node, line)
    return best
