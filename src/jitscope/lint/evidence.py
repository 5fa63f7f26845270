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
function's first line, each with the file's ``events``.

Events (``TraceEvidence.events``, optional): what the run observed at a line of the file (an error JAX raised while tracing or at a
jitted call, a leaked tracer, a needless recompile: ``analyze/evidence_events.py``), under the lint rule of
that class. ``merge_events`` reports each once: on a static finding of the same class at that line (which
then says it was observed, and becomes an ``error`` when JAX raised there), else as a finding of its own,
marked observed, with the catalogue's fix. An error JAX raised is certain for the entry point that ran it;
a recompile is a warning with its count.
"""

from __future__ import annotations

import ast
import os

from ..errors import UsageError
from ..model import EVIDENCE_DEFAULT_PATH

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from pathlib import Path

    from ..model import TraceEvidence

# (qualname, {parameter: kinds seen}, via text, transforms, {parameter: abstract leaf paths seen})
Observed = tuple[str, dict[str, frozenset[str]], str, tuple[str, ...], dict[str, frozenset[str]]]
# (rule, line, severity, error, cause, count, function, fix title, fix why, evidence file's name, watch's code)
# (..., where the cause was built: "file:line" of an eager control-flow body, ObservedEvent.built_at,
#  the reported frame was being traced (True/False; None: not known), the other frames of the error's chain
#  to show as related: (file, line, function, "raised" | "called"), the line is the first line of the function
#  the event is about (ObservedEvent.defined_at): merge_events reports at the line of it that the fix changes)
Event = tuple[str, int, str, str, str, int, str, str, str, str, str, tuple[str, ...], bool | None,
              tuple[tuple[str, int, str, str], ...], bool]
RELATED_FRAMES = 3  # calls that reached the reported frame, shown as related (the innermost first)

# An observed event's rule -> the static rules of the same class (a finding of one of them at the event's line
# is the same problem: it is marked observed instead of reported twice). JAX's error names one mechanism; the
# static rules split it by the construct that hit it (`and` on a tracer is JS102, builtin max() JS201, ...).
SAME_CLASS = {
    "JS101": ("JS101", "JS102", "JS106", "JS201"),
    "JS103": ("JS103", "JS101", "JS105", "JS302", "JS303", "JS304"),
    "JS104": ("JS104", "JS105"),
    "JS301": ("JS301", "JS302"),
    "JS303": ("JS303", "JS302", "JS304"),
    "JS403": ("JS403", "JS402", "JS404", "JS405", "JS406"),
    "JS602": ("JS602", "JS604"),
    "JS204": ("JS204", "JS203", "JS205", "JS206"),
}


class FileObservations(dict):
    """One file's observations: the functions a run saw traced, by first line (the dict), and ``events``."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []

    def __bool__(self) -> bool:
        return bool(len(self)) or bool(self.events)


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


def _placed(ev, linted: set[str] | None) -> tuple[str, int, bool | None, tuple, bool]:
    """(file, line, traced, related) where an event is reported: its own line, unless that is outside the linted
    tree and a frame of the error's chain (``ObservedEvent.frames``, outermost first) is inside it: then the
    innermost such frame (a driver or test outside the tree called the library line that failed), with the
    line that raised and the calls that reached it as related. An error about a value whose field the run found
    declared in the linted tree (``built_at`` of an event other than JS209's: a pytree field JAX refused to trace)
    is reported at that declaration, the line that raised related. An event with neither its line nor any frame
    of its chain in the linted tree (a driver's call of the tree's jitted function refused before any trace, a
    driver's loop recompiling it, a scan body whose carry JAX refused after it returned) is reported at the
    tree's definition of the function it is about (``ObservedEvent.defined_at``; the last item True), the
    driver's line related."""
    frames = [f for f in ev.frames if isinstance(f, dict) and f.get("file") and int(f.get("line") or 0) > 0]
    real = os.path.realpath(ev.file)
    if ev.code != "JS209" and linted is not None:
        for site in ev.built_at:
            path, _, ln = site.rpartition(":")
            if ln.isdigit() and os.path.realpath(path) in linted:
                calls = [(f["file"], int(f["line"]), str(f.get("function", "")), "called") for f in reversed(frames)
                         if (f["file"], int(f["line"])) != (ev.file, ev.line)][:RELATED_FRAMES]
                return path, int(ln), None, ((ev.file, ev.line, ev.function, "raised"), *calls), False
    at = [i for i, f in enumerate(frames) if os.path.realpath(f["file"]) == real and int(f["line"]) == ev.line]
    inside = [i for i, f in enumerate(frames) if linted is not None and os.path.realpath(f["file"]) in linted]
    if linted is not None and real not in linted and not inside:
        for site in getattr(ev, "defined_at", ()):
            path, _, ln = site.rpartition(":")
            if ln.isdigit() and os.path.realpath(path) in linted:
                role = "raised" if ev.error else "called"
                calls = [(f["file"], int(f["line"]), str(f.get("function", "")), "called") for f in reversed(frames)
                         if (f["file"], int(f["line"])) != (ev.file, ev.line)][:RELATED_FRAMES]
                return path, int(ln), None, ((ev.file, ev.line, ev.function, role), *calls), True
    if linted is None or real in linted or not frames:
        traced = bool(frames[at[-1]].get("traced")) if at else None
        return ev.file, ev.line, traced, (), False
    if not inside:
        return ev.file, ev.line, None, (), False
    k = inside[-1]
    target = frames[k]
    related = [(ev.file, ev.line, ev.function, "raised")]
    related += [(f["file"], int(f["line"]), str(f.get("function", "")), "called")
                for f in reversed(frames[:k]) if (f["file"], int(f["line"])) != (ev.file, ev.line)][:RELATED_FRAMES]
    return target["file"], int(target["line"]), bool(target.get("traced")), tuple(related), False


def index(evidence: TraceEvidence, source: str, files: list[str] | None = None) -> dict[str, dict[int, Observed]]:
    """Per real path, per first line: the merged observations of that function (every parameter with
    every kind a trace gave it; the first entry point, for the message). ``files``: the linted files (an
    error whose own line is outside them is reported at the innermost frame of its chain inside them)."""
    out: dict[str, dict[int, Observed]] = {}
    name = os.path.basename(source)
    linted = {os.path.realpath(f) for f in files} if files is not None else None
    for ev in evidence.events:
        if ev.file and ev.line > 0:
            file, line, traced, related, defined = _placed(ev, linted)
            table = out.setdefault(os.path.realpath(file), FileObservations())
            table.events.append((ev.code, line, ev.severity, ev.error, ev.cause, ev.count, ev.function,  # type: ignore[attr-defined]
                                 ev.fix_title, ev.fix_why, name, ev.runtime_code,
                                 tuple(ev.built_at) if ev.code == "JS209" else (), traced, related, defined))
    for fn in evidence.functions:
        if not fn.file:
            continue
        path = os.path.realpath(fn.file)
        table = out.setdefault(path, FileObservations())
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


def _event_text(error: str, cause: str, function: str, count: int, code: str, runtime: str = "",
                traced: bool | None = None) -> str:
    times = f" ({count} times)" if count > 1 else ""
    fn = f"`{function}`" if function else "a jitted function"
    if code == "JS701":
        how = ", raised while JAX traced this line" if traced else ""
        said = f": {cause}" if cause else ""
        return f"the run died of {error or 'an error'} from JAX (in {fn}){how}{times}{said}"
    if code == "JS403" and error and cause.startswith("the leak checker"):
        return f"{cause} when that trace ended: JAX's leak checker raised {error}{times}"
    if code == "JS403" and error:
        return f"a tracer of the trace of {fn} leaked and was used after that trace ended: JAX raised {error}{times}"
    if code == "JS602" and error:
        return f"{cause} at a jitted call here (in {fn}): JAX raised {error}{times}"
    if error and (runtime == "raised" or code in _OUTSIDE_TRACE):
        said = f": {cause}" if cause else ""
        return f"JAX raised {error} here (in {fn}){times}{said}"
    if error:
        said = f": {cause}" if cause else ""
        return f"JAX raised {error} here while tracing {fn}{times}{said}"
    return f"{fn} compiled again into a program it already had{times}: jit's cache key differed by {cause}"


_OUTSIDE_TRACE = ("JS305", "JS306")  # rules whose observed errors JAX raises outside any trace as well


def _function_span(tree: ast.AST | None, line: int) -> tuple[int, int] | None:
    """(first line, last line) of the innermost def holding ``line`` (from its first decorator's line)."""
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # type: ignore[attr-defined]
            end = node.end_lineno or node.lineno  # type: ignore[attr-defined]
            if start <= line <= end and (best is None or start >= best[0]):
                best = (start, end)
    return best


def merge_events(findings: list, table: dict | None, filename: str, text: str, enabled, rules: dict,
                 tree: ast.AST | None = None) -> None:
    """Add the run's events at this file's lines to ``findings`` (lint_text's, before ``noqa``): each marks a
    static finding of its class at its line observed, or is reported itself. A leaked tracer (JS403) is known
    by the line that made it (JAX names it), else by the function whose trace made it (its first line): a
    store into outer state that a static rule found in that function is the leak; without one, the line. ``rules``: the
    catalogue (``registry.all_rules()``), for each rule's name."""
    events = getattr(table, "events", None)
    if not events:
        return
    from ..model import Finding, Fix

    lines = text.splitlines()
    for code, line, severity, error, cause, count, function, title, why, source, runtime, *more in events:
        if code not in enabled or code not in rules or not 0 < line <= len(lines):
            continue
        traced = more[1] if len(more) > 1 else None
        chain = [_chain_related(f) for f in more[2]] if len(more) > 2 else []
        if len(more) > 3 and more[3]:  # at the definition of the function the event is about: the fix's line there
            from .evidence_origin import definition_line

            line = definition_line(tree, line, code, cause)
        span = _function_span(tree, line) if code == "JS403" else None
        first, last = span or (line, line)
        said = _event_text(error, cause, function, count, code, runtime, traced)
        if chain and error and len(more) > 3 and more[3]:
            times = f" ({count} times)" if count > 1 else ""
            said = (f"JAX raised {error} at {os.path.basename(chain[0]['file'])}:{chain[0]['line']} (in "
                    f"`{function or '?'}`), about the function defined here{times}: {cause}")
        elif chain and error:
            said = f"{said}; the error was raised at {os.path.basename(chain[0]['file'])}:{chain[0]['line']}"
        elif chain:
            said = f"{said}; the call was at {os.path.basename(chain[0]['file'])}:{chain[0]['line']}"
        how = f"observed in the run recorded in {source}"
        record = {"rule": code, "error": error, "cause": cause, "count": count, "function": function,
                  "evidence": source, "proved": "raised" if error else "recompiled"}
        group = SAME_CLASS.get(code, (code,))
        same = [f for f in findings if f.code in group and f.location is not None
                and (f.location.line <= last and first <= (f.location.end_line or f.location.line)
                     or any(r.get("line") == line for r in f.details.get("related") or ()))]
        if code == "JS701":  # JAX's error no rule names, at a line a static rule already flags: one finding, that rule's
            same = [f for f in findings if f.location is not None and f.location.line == line
                    and f.severity != "info" and "observed_event" not in f.details][:1]
        built = _built_in_caller(tree, filename, line, more[0] if more else ())
        if not built and code == "JS305":  # a cond branch's Python scalar: where that branch computes it
            from .evidence_origin import origin_line

            built = origin_line(tree, line, cause)
            if built:
                said = (f"this branch output is a Python scalar whose dtype differs from the other branch's: "
                        f"JAX raised {error} at the call on line {line} (in `{function or '?'}`)"
                        f"{f' ({count} times)' if count > 1 else ''}: {cause}")
        if built:  # the fix goes where the caller builds the body anew: report there, the call related
            for f in same:
                f.location = _line_location(filename, built, lines)
                f.details["related"] = [related_call(filename, line, lines, code)]
            if not same:
                record["related_call"] = line
        for f in same:
            f.message = f"{f.message}; {how}: {said}"
            f.details["observed"] = True
            f.details["observed_event"] = record
            if chain:
                f.details["related"] = [*(f.details.get("related") or ()), *chain]
            if severity == "error" and f.severity != "error":
                f.severity, f.confidence = "error", "certain"  # JAX raised it at this line: not a guess
        if same:
            continue
        rule = rules[code]
        details: dict = {"observed": True, "observed_event": record}
        if built:
            details["related"] = [related_call(filename, line, lines, code)]
        if chain:
            details["related"] = [*(details.get("related") or ()), *chain]
        findings.append(Finding(code, f"{said} ({how})", severity, _line_location(filename, built or line, lines),
                                rule.name, fix=Fix(title, why) if title else None, details=details,
                                confidence="certain" if severity == "error" else "likely"))


def _chain_related(frame: tuple) -> dict:
    """A related location (``details.related``) of one frame of an observed error's chain outside this line."""
    file, line, function, role = frame
    where = f" in `{function}`" if function else ""
    said = "the error was raised here" if role == "raised" else "the call that reached it"
    return {"file": file, "line": int(line), "message": f"{said}{where}"}


def _line_location(filename: str, line: int, lines: list[str]):
    from ..model import Location

    src = lines[line - 1]
    return Location(filename, line, len(src) - len(src.lstrip()) + 1)


def related_call(filename: str, line: int, lines: list[str], code: str = "") -> dict:
    """A finding's related location (``details.related``; SARIF ``relatedLocations``): the call that ran what
    the finding's own line built (JS305: the cond/switch call whose branches differ)."""
    what = "the call whose branches differ" if code == "JS305" else "the call that traced it again"
    return {"file": filename, "line": line, "message": f"{what}: {lines[line - 1].strip()[:80]}"}


def _built_in_caller(tree: ast.AST | None, filename: str, call_line: int, built_at: tuple[str, ...]) -> int:
    """The first line, in this file, where the function holding the call at ``call_line`` builds one of the
    bodies an eager control-flow call was given (``built_at``, ``file:line`` of each body's definition),
    other than the call's own line: a closure defined in the caller is a new function object at each call, so
    the fix goes there. 0 when none (a body defined at the call, or once outside the caller)."""
    if not built_at or tree is None:
        return 0
    span = _function_span(tree, call_line)
    if span is None:
        return 0
    here = os.path.realpath(filename)
    found = []
    for site in built_at:
        path, _, ln = site.rpartition(":")
        if ln.isdigit() and os.path.realpath(path) == here and int(ln) != call_line and span[0] < int(ln) <= span[1]:
            found.append(int(ln))
    return min(found) if found else 0
