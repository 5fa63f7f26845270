"""Parse once, visit once: the lint engine behind ``jitscope.lint``.

``lint_source(text, filename)`` parses the file (a syntax error or undecodable bytes
becomes one JS001/JS002 finding), gathers module facts in one pre-pass
(``scope.ModuleInfo``), then walks the tree once (``visitor.py``) with a stack of frames
(``context.py``). Rules subscribe to node types and ask the ``Context`` questions.
"""

from __future__ import annotations

import ast
import sys
import warnings
from collections.abc import Iterable

from ..model import Finding
from . import callgraph, evidence, reach, wrapped
from .callgraph import OutgoingCall
from .context import ARRAY_NAMESPACES as ARRAY_NAMESPACES
from .context import Context as Context
from .operator_calls import OperatorEdges
from .registry import all_rules, parse_finding
from .source import _suppressed, decode_bytes, parse_noqa
from .value_calls import ValueCallEdges
from .visitor import _Visitor

DEEP_LIMIT = 12_000  # recursion limit while walking a tree (Python frames, not C stack, in 3.11+)


def _mentions_jax(text: str) -> bool:
    return "jax" in text or "equinox" in text or "flax" in text


def _line(text: str, lineno: int | None) -> str | None:
    lines = text.splitlines()
    return lines[lineno - 1] if lineno and 0 < lineno <= len(lines) else None


def decode_source(data: bytes, filename: str) -> tuple[str | None, Finding | None]:
    """Decode file bytes per PEP 263 (coding cookie, BOM); a JS002 finding if they are not text."""
    text, problem = decode_bytes(data)
    if problem is not None:
        return None, parse_finding("JS002", problem[0], filename, problem[1])
    return text, None


def lint_text(text: str, filename: str, enabled: set[str], assume_traced: bool = False,
              incoming: list[tuple[str, OutgoingCall]] | None = None,
              observed: dict | None = None) -> tuple[list[Finding], Context | None]:
    """Lint decoded source; returns findings (noqa applied) and the Context (None on a parse error).

    ``assume_traced`` treats every function as traced with every parameter traced: a stress
    mode for robustness tests, which drives every rule over code that never mentions JAX.
    ``observed`` (lint/evidence.py: what a run saw JAX trace in this file, by first line) adds the
    functions the run saw traced, whatever the source shows.
    ``incoming`` (calls from other linted modules, ``lint/traced.py``) adds the ways those calls reach
    this module's functions: the file is linted again whole, and its findings replace the first pass's.
    The Context's ``cg_outgoing`` lists this module's calls into other modules.
    """
    try:
        with warnings.catch_warnings():  # invalid escape sequences etc.: the user's compiler will say
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=filename)
    except SyntaxError as e:
        finding = parse_finding("JS001", f"syntax error: {e.msg}", filename, e.lineno or 1, e.offset or 1)
        from . import pyversion  # only a file that fails to parse asks (its patterns compile at import)

        newer = pyversion.newer_python(filename, _line(text, e.lineno), e.msg or "")
        if newer:  # valid for the Python the project targets: say what this one could not do, as info
            v = sys.version_info
            finding.message = f"cannot parse with Python {v[0]}.{v[1]} ({e.msg}); {newer[0]}: not linted"
            finding.severity = "info"
            finding.confidence = "certain" if newer[1] else "likely"
        return [finding], None
    except (RecursionError, MemoryError):  # valid code nested past the parser's limit: not a syntax error
        return [parse_finding("JS003", "expressions nested too deeply for Python's parser; not linted",
                              filename)], None
    except ValueError as e:  # null bytes
        return [parse_finding("JS001", f"cannot parse: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
                              filename)], None
    if not assume_traced and incoming is None and not observed and not _mentions_jax(text):
        return [], None  # every rule needs JAX (or equinox/flax) imported: nothing else to find
    limit = sys.getrecursionlimit()
    # Generated code (sympy's lambdify) nests 500-1,000 deep; the walk takes a few frames per level.
    sys.setrecursionlimit(max(limit, DEEP_LIMIT))
    try:
        ctx = Context(tree, text, filename, enabled)
        ctx.assume_traced = assume_traced
        ctx.observed = observed
        rules = [cls() for code, cls in all_rules().items() if code in enabled and cls.nodes]
        try:
            graph = callgraph.ENABLED and not assume_traced
            hooks = [callgraph.CallEdges(), callgraph.HandedToTransform(), OperatorEdges(), ValueCallEdges()] if graph else []
            if not assume_traced:
                wrapped.mark(ctx)  # functions a project wrapper jits are traced (lint/wrapped.py)
            _Visitor(ctx, rules + hooks).visit_all(tree.body)
            if graph:
                start = reach.resolve_incoming(ctx, incoming) if incoming else None
                reach.follow(ctx, _Visitor, rules, start)
        except RecursionError:
            ctx.findings.append(parse_finding("JS003", "expressions nested too deeply; file only partly linted",
                                              filename))
        except Exception as e:  # noqa: BLE001 - a bug of the analysis itself: keep what was found, say so
            ctx.failures.setdefault("the file's analysis", (1, f"{type(e).__name__}: {e}"[:200]))
    except RecursionError:  # the module pre-pass itself
        return [parse_finding("JS003", "expressions nested too deeply; not linted", filename)], None
    finally:
        sys.setrecursionlimit(limit)
    findings = ctx.findings
    if observed:
        evidence.merge_events(findings, observed, filename, text, enabled, all_rules(), tree)
    for who, (line, error) in ctx.failures.items():
        findings.append(parse_finding("JS004", f"internal error: {who} failed at line {line} ({error}); its "
                                      "findings in this file may be missing (a jitscope bug: please report it)",
                                      filename, line))
    if findings:
        # A function walked twice (observed traced by a run, then reached again by the call graph) reports a
        # problem once: the later walk's finding, whose message names every way it was reached, replaces it.
        once: dict[tuple, Finding] = {}
        for f in findings:
            loc = f.location
            once[(f.code, loc.line, loc.column, loc.end_line, loc.end_column) if loc else (f.code, f.message)] = f
        findings = list(once.values())
        noqa = parse_noqa(text)
        findings = [f for f in findings if not _suppressed(f, noqa)]
    findings.sort(key=lambda f: (f.location.line if f.location else 0, f.location.column or 0 if f.location else 0,
                                 f.code))
    return findings, ctx


def lint_source(text: str | bytes, filename: str = "<string>", *, select: Iterable[str] | None = None,
                ignore: Iterable[str] | None = None) -> list[Finding]:
    """Lint one source text (str or raw bytes) and return its findings.

    Example:
        >>> from jitscope.lint import lint_source
        >>> src = "import jax\\n@jax.jit\\ndef f(x):\\n    if x > 0:\\n        return x\\n    return -x\\n"
        >>> [f.code for f in lint_source(src)]
        ['JS101']
    """
    from .registry import check_selectors, selected_codes

    enabled = selected_codes(check_selectors(select or [], "select") or None, check_selectors(ignore or [], "ignore"))
    if isinstance(text, bytes):
        decoded, bad = decode_source(text, filename)
        if decoded is None:
            return [bad] if bad and bad.code in enabled else []
        text = decoded
    findings, _ = lint_text(text, filename, enabled)
    return [f for f in findings if f.code in enabled]
