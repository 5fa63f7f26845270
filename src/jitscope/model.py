"""The shared records every command speaks: where, what was called, how long, what went wrong.

These are deliberately small and plain. Collectors produce them, analyzers read
and derive them, renderers display them, and all of them round-trip through JSON
(see ``jitscope/schema/records.schema.json``). Later commands reuse these rather
than inventing their own shapes.

They live in three modules, and this one gives every name of them: ``records.py`` (``Location``, ``Fix``,
``Finding``, ``Environment``: what ``jitscope lint`` makes), ``trace_records.py`` (the trace evidence a run
leaves and ``jitscope lint --evidence`` reads) and ``compile_records.py`` (``LeafSpec``, ``ArgSignature``,
``Timing``, ``Reason``, ``CompileEvent`` and the persistent-cache records: what watch, inspect, compare and
scale make). The last two are imported the first time one of their names is asked for (PEP 562), so that
linting one file does not create ten dataclasses it never uses (docs/architecture.md, "Records").
"""

from __future__ import annotations

from .records import DTYPE_LONG as DTYPE_LONG
from .records import DTYPE_SHORT as DTYPE_SHORT
from .records import EVIDENCE_DEFAULT_PATH as EVIDENCE_DEFAULT_PATH
from .records import Confidence as Confidence
from .records import Environment as Environment
from .records import Finding as Finding
from .records import Fix as Fix
from .records import FixSafety as FixSafety
from .records import Location as Location
from .records import Severity as Severity
from .records import installed_package_file as installed_package_file
from .records import is_test_code_file as is_test_code_file

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any

    from .compile_records import CACHE_KEY_COMPONENTS as CACHE_KEY_COMPONENTS
    from .compile_records import FUNCTION_IDENTITY_MARK as FUNCTION_IDENTITY_MARK
    from .compile_records import IDENTITY_MARK as IDENTITY_MARK
    from .compile_records import MEMBERS_IDENTITY_MARK as MEMBERS_IDENTITY_MARK
    from .compile_records import NOT_WRITTEN as NOT_WRITTEN
    from .compile_records import REASON_CATEGORIES as REASON_CATEGORIES
    from .compile_records import ArgSignature as ArgSignature
    from .compile_records import CacheKeyComponent as CacheKeyComponent
    from .compile_records import CompileEvent as CompileEvent
    from .compile_records import LeafSpec as LeafSpec
    from .compile_records import PersistentCacheRecord as PersistentCacheRecord
    from .compile_records import Reason as Reason
    from .compile_records import Timing as Timing
    from .compile_records import has_identity_members as has_identity_members
    from .compile_records import identity_bindings as identity_bindings
    from .compile_records import is_identity_hashed as is_identity_hashed
    from .compile_records import sharding_text as sharding_text
    from .trace_records import ObservedEvent as ObservedEvent
    from .trace_records import TracedFunction as TracedFunction
    from .trace_records import TracedParameter as TracedParameter
    from .trace_records import TraceEvidence as TraceEvidence
    from .trace_records import TraceKind as TraceKind


TRACE_RECORDS = frozenset({"TraceKind", "TracedParameter", "TracedFunction", "TraceEvidence", "ObservedEvent"})
_COMPILE_RECORDS = frozenset({
    "LeafSpec", "ArgSignature", "Timing", "Reason", "CacheKeyComponent", "PersistentCacheRecord", "CompileEvent",
    "sharding_text", "IDENTITY_MARK", "MEMBERS_IDENTITY_MARK", "FUNCTION_IDENTITY_MARK", "is_identity_hashed", "has_identity_members", "identity_bindings", "REASON_CATEGORIES", "CACHE_KEY_COMPONENTS",
    "NOT_WRITTEN",
})


def __getattr__(name: str) -> Any:
    # `from jitscope.model import CompileEvent` asks here once: compile_records.py (or trace_records.py) is
    # imported then, and the name kept in this module's namespace
    if name in _COMPILE_RECORDS:
        from . import compile_records as module
    elif name in TRACE_RECORDS:
        from . import trace_records as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _COMPILE_RECORDS | TRACE_RECORDS)
