"""Evidence from a run: the functions a run saw JAX trace, as reaches of the tracing model.

A run (watch, or any collector) records, for every function of the user's code that ran while JAX
traced, what each parameter was (abstract tracer, concrete tracer, static value) and from which
entry point (``model.TraceEvidence``). ``jitscope lint --evidence RUN`` reads it: a function the run
saw traced is walked as traced even when no jit is visible in the source (a registry, another
package, an attribute set at run time), with the parameters the run saw abstract traced; a finding
there says so ("observed: traced by `step` (train.py:40) in run.json"). An observation is one way
the code is reached, never all of them: alone it gives a warning, not an error.

``load`` reads a trace-evidence file (or a watch result carrying ``trace_evidence``); ``index``
turns it into plain per-file tables (picklable: they travel to the lint workers) keyed by the
function's first line.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..model import TraceEvidence

from ..errors import UsageError
from ..model import EVIDENCE_DEFAULT_PATH

# (qualname, {parameter: kinds seen}, via text, transforms, {parameter: abstract leaf paths seen})
Observed = tuple[str, dict[str, frozenset[str]], str, tuple[str, ...], dict[str, frozenset[str]]]


def find(path: str | None, root: str = ".") -> Path | None:
    """The evidence file to read: ``path`` (a file, or a directory holding one), else the default
    location under ``root`` when a run left one there; None when there is none."""
    if path is None:  # every lint asks: answered without importing pathlib when there is no file
        default = os.path.join(root, EVIDENCE_DEFAULT_PATH)
        if not os.path.isfile(default):
            return None
    from pathlib import Path

    if path is None:
        return Path(root) / EVIDENCE_DEFAULT_PATH
    p = Path(path)
    if p.is_dir():
        for cand in (p / "trace-evidence.json", p / EVIDENCE_DEFAULT_PATH):
            if cand.is_file():
                return cand
        raise UsageError(f"{path}: no trace-evidence.json in this directory")
    if not p.is_file():
        raise UsageError(f"{path}: no such evidence file")
    return p


def load(path: Path) -> TraceEvidence:
    """Read trace evidence from a ``trace-evidence`` file or a watch result that carries one."""
    import json  # here, not at the top: a lint without evidence does not import it (nor the evidence records)

    from .._files import read_text
    from ..model import TraceEvidence

    text = read_text(path)  # a device, a directory, an oversized or non-UTF-8 file: one line
    try:
        data = json.loads(text)
    except ValueError as e:
        raise UsageError(f"{path}: cannot read trace evidence: {e}") from None
    if isinstance(data, dict) and data.get("kind") == "trace-evidence":
        body = data
    elif isinstance(data, dict) and isinstance(data.get("trace_evidence"), dict):
        body = data["trace_evidence"]
    else:
        raise UsageError(f"{path}: not trace evidence (expected kind \"trace-evidence\", or a run with "
                         "trace_evidence)")
    try:
        return TraceEvidence.from_dict(body)
    except (TypeError, ValueError, KeyError) as e:
        raise UsageError(f"{path}: malformed trace evidence: {e}") from None


def index(evidence: TraceEvidence, source: str) -> dict[str, dict[int, Observed]]:
    """Per real path, per first line: the merged observations of that function (every parameter with
    every kind a trace gave it; the first entry point, for the message)."""
    out: dict[str, dict[int, Observed]] = {}
    name = os.path.basename(source)
    for fn in evidence.functions:
        if not fn.file:
            continue
        path = os.path.realpath(fn.file)
        table = out.setdefault(path, {})
        prev = table.get(fn.line)
        kinds: dict[str, set[str]] = {k: set(v) for k, v in (prev[1] if prev else {}).items()}
        leaves: dict[str, set[str]] = {k: set(v) for k, v in (prev[4] if prev else {}).items()}
        for p in fn.parameters:
            kinds.setdefault(p.name, set()).add(p.kind)
            if p.leaves:
                leaves.setdefault(p.name, set()).update(p.leaves)
        where = f" ({os.path.basename(fn.entry_file)}:{fn.entry_line})" if fn.entry_file else ""
        via = prev[2] if prev else f"observed: traced by `{fn.entry or '?'}`{where} in {name}"
        transforms = tuple(sorted(set(prev[3] if prev else ()) | ({fn.transform} if fn.transform else set())))
        table[fn.line] = (fn.qualname, {k: frozenset(v) for k, v in sorted(kinds.items())}, via, transforms,
                          {k: frozenset(v) for k, v in sorted(leaves.items())})
    return out


def for_file(tables: dict[str, dict[int, Observed]] | None, path: str) -> dict[int, Observed] | None:
    """The observations of one linted file (matched by real path), or None."""
    if not tables:
        return None
    return tables.get(os.path.realpath(path))


def observation(ctx, node) -> Observed | None:  # ctx: lint.context.Context
    """What the run saw of the def or lambda ``node`` (matched by its code object's first line: the first
    decorator's, else its own), or None."""
    table = ctx.observed
    if not table:
        return None
    line = getattr(node, "lineno", 0)
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        line = min(line, *(d.lineno for d in decorators))
    hit = table.get(line)
    if hit is None:
        return None
    name = getattr(node, "name", "<lambda>")
    return hit if hit[0].rpartition(".")[2] == name else None


def observe(ctx, node, spec):  # spec: lint.scope.StaticSpec | None
    """``spec`` with what the run observed of ``node`` added: the parameters it saw abstract are traced (on
    some way: a may fact), and the finding will say the function was observed traced. A function the
    static model does not trace at all becomes traced by the observation alone."""
    from ..jaxmodel import known
    from .facts import NESTED
    from .scope import StaticSpec

    obs = observation(ctx, node)
    if obs is None:
        return spec
    _, kinds, via, transforms, leaves = obs
    abstract = frozenset(p for p, ks in kinds.items() if "abstract" in ks)
    leaves = {p: paths for p, paths in leaves.items() if p not in abstract}
    if not abstract and not leaves:
        return spec  # seen only concrete (grad outside jit) or static: nothing for the abstract rules
    leaf_items = tuple(sorted(leaves.items()))
    staged = "may" if not transforms or any(
        (t := known.lookup(tr)) is None or t.python_runs != "each_call" for tr in transforms) else ""
    if not abstract:
        # Only leaves of containers were seen abstract: the reads of those leaves are traced, but a function
        # whose every parameter was a Python value (a context manager's `__enter__`, a handler given a dict of
        # tracers) is not claimed to be staged: its trace-time effects are often its point (a push and pop).
        # A helper nested in traced code keeps what the static model says of it.
        staged = spec.staged if spec is not None else ""
    if spec is None or spec.wrapper == NESTED:
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
        return StaticSpec(argnames=tuple(p for p in params if p not in abstract), wrapper="<observed>", via=via,
                          staged=staged, closed=False, must_names=frozenset(), observed=via,
                          observed_abstract=abstract, observed_leaves=leaf_items)
    from dataclasses import replace

    return replace(spec, observed=via, observed_abstract=abstract, observed_leaves=leaf_items,
                   staged=spec.staged or staged)


def leaf_path(node: ast.AST) -> tuple[str, str] | None:
    """(root name, access path) of ``state[0].w`` / ``self.layer['b']``: attribute and constant-index reads
    of a name, written as the evidence writes them; None for anything else."""
    steps: list[str] = []
    while True:
        t = type(node)
        if t is ast.Attribute:
            steps.append(f".{node.attr}")  # type: ignore[attr-defined]
        elif t is ast.Subscript and type(node.slice) is ast.Constant and type(node.slice.value) in (int, str):  # type: ignore[attr-defined]
            steps.append(f"[{node.slice.value!r}]")  # type: ignore[attr-defined]
        elif t is ast.Name:
            return (node.id, "".join(reversed(steps))) if steps else None  # type: ignore[attr-defined]
        else:
            return None
        node = node.value  # type: ignore[attr-defined]


def observed_leaf(ctx, node: ast.AST) -> bool:  # ctx: lint.context.Context
    """Is ``node`` (``state[0]``, ``self.w``) a leaf the run saw abstract, of a parameter of the function
    it belongs to that the body has not rebound?"""
    hit = leaf_path(node)
    if hit is None:
        return False
    name, path = hit
    f = ctx._local_frame(name)
    spec = f.spec if f is not None else None
    if spec is None or not spec.observed_leaves or name not in f.params or name in f.bound:
        return False
    return any(p == name and path in paths for p, paths in spec.observed_leaves)


def bind_unpacked(ctx, target: ast.AST, value: ast.Name) -> None:  # ctx: lint.context.Context
    """``x, n = state``: the names at the positions whose leaves a run saw abstract (``state[0]``) are traced."""
    if type(target) not in (ast.Tuple, ast.List):
        return
    for i, elt in enumerate(target.elts):  # type: ignore[attr-defined]
        if type(elt) is ast.Starred:
            return  # positions after a star are not known
        if type(elt) is ast.Name and observed_leaf(ctx, ast.Subscript(value=value, slice=ast.Constant(i))):
            ctx.frame.traced_names.add(elt.id)
