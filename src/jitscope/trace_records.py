"""What a run saw JAX trace: written by watch (or any collector), read by ``jitscope lint --evidence``.

``jitscope.model`` gives these names; this module is imported the first time one is asked for there (PEP 562), so that a lint without evidence creates none of these dataclasses (docs/architecture.md,
"Records"). Where a run leaves them by default is ``records.EVIDENCE_DEFAULT_PATH``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._serde import Record
from .records import Environment

TraceKind = Literal["abstract", "concrete", "static"]
FORMAT_VERSION = 1  # of a saved trace-evidence file; new optional fields (events) do not bump it (schema/CHANGELOG.md)

@dataclass(frozen=True)
class TracedParameter(Record):
    """One parameter of a traced function and what JAX made of it on one trace.

    ``abstract``: a tracer without a value (jit, vmap, a scan body: Python control flow on it raises);
    ``concrete``: a tracer that still carries its value (grad or jvp outside jit); ``static``: not a
    tracer (a static argument, a Python value passed through, a closure's config).

    ``leaves``: for a parameter that is not itself a tracer (a tuple state, a dict, an equinox module's
    ``self``, a dataclass), the access paths of its leaves that were abstract tracers, as Python writes
    them (``.w``, ``[0]``, ``['key']``, ``.layer.b``; at most three steps deep): lint reads
    ``state[0]``, ``self.w`` as traced where the run saw them so. Absent when there is none.
    """

    name: str
    kind: TraceKind
    leaves: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if not out.get("leaves"):
            out.pop("leaves", None)  # optional: absent where the value is a tracer or holds none
        return out


@dataclass
class TracedFunction(Record):
    """A function of the user's code that ran while JAX traced it, as seen from one entry point.

    ``module``/``qualname`` name it as Python does (``pkg.ops``, ``Trainer._step``,
    ``make_step.<locals>.step``); ``file`` is its source file (absolute path) and ``line`` its code
    object's first line (the first decorator's line for a decorated def, else the ``def`` line).
    ``entry`` is the transformed function whose trace ran it (``step`` for ``jax.jit(step)``), at
    ``entry_file``:``entry_line``, under ``transform`` (``jax.jit``, ``jax.vmap``, ... or ``""`` when
    unknown). ``parameters`` says what each parameter was on that trace; ``traces`` counts the traces
    that saw the function this way.
    """

    module: str
    qualname: str
    file: str
    line: int
    parameters: list[TracedParameter] = field(default_factory=list)
    entry: str = ""
    entry_file: str = ""
    entry_line: int = 0
    transform: str = ""
    traces: int = 1


@dataclass
class ObservedEvent(Record):
    """Something the run saw jit do at a line of the user's code (an optional field since 2026-11-27): an error JAX raised while tracing or
    at a jitted call, a tracer leaked, a compile that built a program it already had.

    ``code`` is the lint rule of that class (``JS101`` for a ``TracerBoolConversionError``, ``JS301`` for a
    boolean-mask index, ``JS602`` for an unhashable static argument, ``JS210``/``JS208``/``JS204``/``JS209``
    for a recompile by weak type, static value, new function object, eager control flow) and ``runtime_code``
    watch's own code (``JW101``, ...; ``raised``: an error JAX raised outside a trace that watch gives no finding
    of; ``crash``: the error the program died of). ``file``:``line`` is the user's line (the innermost frame of the user's
    code for an error, the call for a recompile); ``function`` the jitted function; ``error`` the exception
    class JAX raised (``""`` for a recompile); ``cause`` what differed (a recompile) or what JAX said;
    ``count`` how many times; ``severity`` what the run proved (``error``: JAX raised it; ``warning``: a
    compile the program did not need); ``fix_title``/``fix_why`` the catalogue's fix (``jaxmodel/fixes.py``).
    """

    code: str
    runtime_code: str
    file: str
    line: int
    function: str = ""
    error: str = ""
    cause: str = ""
    count: int = 1
    severity: str = "error"
    fix_title: str = ""
    fix_why: str = ""
    # where the cause was built, when that is not the call (optional, 2026-11-27): the function objects an eager
    # lax.cond/while_loop/scan was given, as "file:line" of their definitions; lint reports at the one the
    # calling function builds per call (the fix's line), with the call as the related location
    built_at: list[str] = field(default_factory=list)
    # every frame of the program's code the error passed through and the frames that called them, outermost
    # first (optional, 2026-11-27): {"file", "line", "function", "traced"}; lint reports at the innermost one
    # inside the linted tree when ``file`` is outside it (a driver or test calling the library)
    frames: list[dict[str, Any]] = field(default_factory=list)
    # where the program defines the function the event is about (optional, 2026-11-28), as "file:line" of its
    # code (the first decorator's line): the function a recompile compiled again, the jitted function whose call
    # JAX refused before tracing it (an unhashable static argument), a lax.scan body the raising line handed to
    # JAX; lint reports there when neither ``file`` nor any of ``frames`` is in the linted tree (a driver's call)
    defined_at: list[str] = field(default_factory=list)


@dataclass
class TraceEvidence(Record):
    """What a run observed JAX trace: every user function that ran under a trace, and how.

    Written by watch (or any collector) to a file of its own (``save``: ``kind: "trace-evidence"``,
    ``records.schema.json#/$defs/trace_evidence_file``) or inside a watch result (``trace_evidence``); read by
    ``jitscope lint --evidence RUN``, which turns the model's guesses about those functions into
    observations (docs/lint.md, "Evidence from a run").
    """

    functions: list[TracedFunction] = field(default_factory=list)
    program: str = ""  # what ran (a script, a pytest node id), for messages
    env: Environment | None = None
    events: list[ObservedEvent] = field(default_factory=list)  # optional: what the run saw at the user's lines

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if not out.get("events"):
            out.pop("events", None)  # optional: a run that saw no error, leak or needless recompile
        return out

    def file_text(self) -> str:
        """The evidence as the text of a ``trace-evidence`` file (``format_version`` 1; ``events`` is optional, and
        a file written before it still reads, with no events)."""
        import json

        return json.dumps({"format_version": FORMAT_VERSION, "kind": "trace-evidence", **self.to_dict()}, indent=1)

    def save(self, path: str | Any) -> None:
        """Write the evidence as a ``trace-evidence`` file (``format_version`` 1), creating its directory."""
        from pathlib import Path

        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(self.file_text(), encoding="utf-8")
