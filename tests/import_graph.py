"""The import graph of ``src/jitscope`` and the layer rules it must keep.

Run it to see the counts: ``python tests/import_graph.py``. ``tests/test_import_graph.py``
fails on any upward import or cycle, with no exceptions list.

Every ``import`` counts: module level, inside functions, and under ``TYPE_CHECKING``.
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``.
A parent package's ``__init__`` run implicitly by importing a submodule is not an edge.

Layers (docs/architecture.md; a module may import its own layer's package and any lower row, except
that entry points reach the stages only through a command function):

    7 entry      jitscope (root), __main__, cli/, pytest_plugin, ipython
    6 demo       _demo, gallery/   (the demo composes the other commands' library functions)
    5 commands   _watch, _inspect, _compare, _scale, _lint, _lint_noqa   (never each other)
  4.5 targets    targets (resolving MOD:FN and building call arguments, for commands and the CLI)
    4 render     render/
    3 results    results/
    2 stages     collect/, analyze/, lint/, schema/     (never each other)
    1 model      model, records, compile_records, trace_records, jaxmodel/ (what JAX and each wrapper family do; pure data)
  0.5 files      _files (reading inputs and opening outputs safely; raises errors.UsageError)
    0 ground     errors, _jaxcompat, _serde, _format, _version, _pycode, _progress, _warmup_runtime (stdlib + jax:
                 copied into every warm-up script)
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "jitscope"

GROUND = {"errors", "_jaxcompat", "_serde", "_format", "_version", "_pycode", "_progress", "_warmup_runtime"}
COMMANDS = {"_watch", "_inspect", "_compare", "_scale", "_lint", "_lint_noqa", "_command_support", "_doctor", "_diff", "_warmup", "_merge"}
DEMO = {"_demo", "gallery"}
ENTRY = {"__main__", "cli", "pytest_plugin", "ipython", "_autowatch", "_autowatch_hook"}
STAGES = {"collect", "analyze", "lint", "schema"}


def layer_of(module: str) -> tuple[float, str]:
    """(rank, group) of a jitscope module; group is the package a same-rank import must share."""
    parts = module.split(".")
    if module == ROOT:
        return 7, "entry"
    top = parts[1]
    if top in ENTRY:
        return 7, "entry"
    if top in DEMO:
        return 6, "demo"
    if top in COMMANDS:
        return 5, top  # a command never borrows from another command
    if top == "targets":
        return 4.5, "targets"  # user targets and call arguments, shared by the commands and the CLI
    if top == "render":
        return 4, "render"
    if top == "results":
        return 3, "results"
    if top in STAGES:
        return 2, top
    if top in ("model", "records", "compile_records", "trace_records", "jaxmodel"):
        return 1, "model"  # jaxmodel: what JAX and each wrapper family do (pure data, no jax import)
    if top == "_files":
        return 0.5, "_files"  # safe reads and writes for every layer above; reports through errors
    if top in GROUND:
        return 0, top
    raise ValueError(f"{module}: no layer assigned; add it to tests/import_graph.py and docs/architecture.md")


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def edges() -> list[Edge]:
    mods = modules()
    out: list[Edge] = []
    seen: set[tuple[str, str]] = set()
    for module, path in mods.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in mods else base)
            for target in targets:
                if target == ROOT or target.startswith(ROOT + "."):
                    # `import jitscope.a.b` binds the module itself: find the longest known prefix
                    while target not in mods and "." in target:
                        target = target.rsplit(".", 1)[0]
                    if target != module and (module, target) not in seen:
                        seen.add((module, target))
                        out.append(Edge(module, target, node.lineno))
    return out


def upward(all_edges: list[Edge]) -> list[Edge]:
    """Edges that go up a layer, sideways into another package of the same layer, or from an entry
    point (CLI, integrations) past the command functions into the stages (collect/analyze/lint)."""
    bad = []
    for e in all_edges:
        (rs, gs), (rt, gt) = layer_of(e.source), layer_of(e.target)
        if rt > rs or (rt == rs and gs != gt and rs != 7) or (rs == 7 and rt == 2 and gt != "schema"):
            bad.append(e)
    return bad


def cycles(all_edges: list[Edge]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for e in all_edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    sccs: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        sccs.append(sorted(comp))
    return sccs


def main() -> int:
    all_edges = edges()
    up = upward(all_edges)
    cyc = cycles(all_edges)
    print(f"{len(modules())} modules, {len(all_edges)} imports, {len(up)} upward, {len(cyc)} cycles")
    for e in up:
        print(f"  up: {e.source}:{e.line} -> {e.target}")
    for c in cyc:
        print(f"  cycle ({len(c)} modules): {', '.join(c)}")
    return 1 if up or cyc else 0


if __name__ == "__main__":
    sys.exit(main())
