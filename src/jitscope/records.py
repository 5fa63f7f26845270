"""The records every command speaks, lint included: where, what went wrong, what to change, on what machine.

``jitscope.model`` gives these, the compile-event records (``compile_records.py``) and the trace evidence
(``trace_records.py``); this module holds the
ones ``jitscope lint`` makes, so that linting imports nothing else (docs/architecture.md, "Records").

These are deliberately small and plain. Collectors produce them, analyzers read
and derive them, renderers display them, and all of them round-trip through JSON
(see ``jitscope/schema/records.schema.json``). Later commands reuse these rather
than inventing their own shapes.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

from ._serde import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, Literal

    Severity = Literal["error", "warning", "info"]
    FixSafety = Literal["safe", "unsafe", "advice"]
    Confidence = Literal["certain", "likely"]
else:  # at run time each is a str (what ``from_dict`` rebuilds a field of a Literal type as: the value itself)
    Severity = FixSafety = Confidence = str

# Short dtype names in jaxpr notation, both directions.
DTYPE_SHORT = {
    "float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
    "bool": "bool", "complex64": "c64", "complex128": "c128",
}
DTYPE_LONG = {v: k for k, v in DTYPE_SHORT.items()}


@dataclass(frozen=True)
class Location(Record):
    """A place in source code. ``line`` and ``column`` are 1-based; column may be unknown."""

    file: str
    line: int
    column: int | None = None
    function: str | None = None
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        col = f":{self.column}" if self.column else ""
        fn = f" in {self.function}" if self.function else ""
        return f"{self.file}:{self.line}{col}{fn}"


def installed_package_file(path: str) -> bool:
    """True for a file of an installed package (under ``site-packages``/``dist-packages``, or the
    interpreter's ``purelib``/``platlib``): a library's code, not the user's."""
    import os
    import sysconfig

    parts = path.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    paths = sysconfig.get_paths()
    return any(root and path.startswith(root + os.sep) for root in (paths.get("purelib"), paths.get("platlib")))


def is_test_code_file(nodeid: str | None, path: str) -> bool:
    """``path`` is the running test's own code, as pytest knows it: the module the test ``nodeid`` was collected
    from (the file part of its node id, relative to pytest's rootdir), or a ``conftest.py`` (pytest's fixture file)
    outside installed packages. The rootdir is not in the node id, so any conftest.py of the program counts; a
    helper module the tests import is the program's code, not the test's. False outside pytest (``nodeid`` None)."""
    import os

    if nodeid is None or not path or path.startswith("<"):
        return False
    module = os.path.normpath(nodeid.split("::", 1)[0])
    full = os.path.normpath(os.path.abspath(path))
    if full == module or full.endswith(os.sep + module):
        return True
    return os.path.basename(full) == "conftest.py" and not installed_package_file(full)


@dataclass
class Fix(Record):
    """A suggested change. ``safety='safe'`` fixes never change behaviour and may be applied automatically."""

    title: str
    description: str = ""
    safety: FixSafety = "advice"
    replacement: str | None = None
    location: Location | None = None
    saving_seconds: float | None = None
    saving_compiles: int | None = None


@dataclass
class Finding(Record):
    """A diagnosed problem: a lint rule hit, a tracer error, graph bloat, a stale capture."""

    code: str
    message: str
    severity: Severity = "warning"
    location: Location | None = None
    name: str = ""
    fix: Fix | None = None
    details: dict[str, object] = field(default_factory=dict)  # builtins only: typing.get_type_hints resolves it without typing on the lint path
    # lint: how sure the rule is, given what the linter proved: "certain" (fails or is silently
    # wrong under jit) or "likely" (depends on something it could not see). None elsewhere.
    confidence: Confidence | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if out.get("confidence") is None:
            del out["confidence"]  # optional: findings of other commands, and files older than the field, lack it
        return out


@dataclass
class Environment(Record):
    """The machine and versions a result was measured on; every result carries one."""

    python: str = ""
    platform: str = ""
    jax: str = ""
    jaxlib: str = ""
    backend: str = ""
    devices: list[str] = field(default_factory=list)
    cpu_count: int = 0
    jitscope: str = ""

    @classmethod
    def capture(cls, with_jax: bool = True) -> Environment:
        # platform imported here: platform.platform() runs `uname -p` in a subprocess, and `jitscope lint`
        # printing text never calls it (cli/lint.py)
        import os
        import platform

        from ._version import __version__

        env = cls(
            python=sys.version.split()[0],
            platform=platform.platform(),
            cpu_count=os.cpu_count() or 0,
            jitscope=__version__,
        )
        if with_jax:
            import jax
            import jaxlib

            env = dataclasses.replace(
                env,
                jax=jax.__version__,
                jaxlib=getattr(jaxlib, "__version__", ""),
                backend=jax.default_backend(),
                devices=[str(d) for d in jax.devices()],
            )
        return env


# -- what a run saw JAX trace (written by watch, read by `jitscope lint --evidence`) ----------------------
# The records (``TraceKind``, ``TracedParameter``, ``TracedFunction``, ``TraceEvidence``) are in
# ``trace_records.py``, which ``jitscope.model`` imports the first time one is asked for: a lint without
# evidence creates none of them (docs/architecture.md, "Records").

# Where a run leaves its trace evidence when no path is given: `jitscope lint` reads it from there.
EVIDENCE_DEFAULT_PATH = ".jitscope/trace-evidence.json"
