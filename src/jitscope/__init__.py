"""jitscope: see what jax.jit does to your program, and what to do about it.

The public API is exactly the names below; everything else is private.

PYTEST_DONT_REWRITE: ``jitscope watch -m pytest`` imports jitscope before pytest loads its
plugin; this marker tells pytest not to warn that it cannot rewrite asserts in it (jitscope's
own modules hold no test asserts), so ``-W error`` runs stay clean.
"""

from __future__ import annotations

import importlib
import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")

# The public names, imported when first used (PEP 562): `import jitscope` costs almost nothing, so a
# `jitscope lint` of one file, the pytest plugin and JITSCOPE=watch's startup hook stay cheap.
_PUBLIC: dict[str, tuple[str, str]] = {
    "Variant": ("._compare", "Variant"),
    "compare": ("._compare", "compare"),
    "scope_variants": ("._compare", "scope_variants"),
    "demo": ("._demo", "demo"),
    "diff": ("._diff", "diff"),
    "inspect": ("._inspect", "inspect"),
    "lint": ("._lint", "lint"),
    "lint_source": ("._lint", "lint_source"),
    "merge": ("._merge", "merge"),
    "scale": ("._scale", "scale"),
    "__version__": ("._version", "__version__"),
    "RecompileError": ("._watch", "RecompileError"),
    "RecompileWarning": ("._watch", "RecompileWarning"),
    "no_recompile": ("._watch", "no_recompile"),
    "watch": ("._watch", "watch"),
    "JitscopeError": (".errors", "JitscopeError"),
    "UsageError": (".errors", "UsageError"),
    "load_ipython_extension": (".ipython", "load_ipython_extension"),
    "ArgSignature": (".model", "ArgSignature"),
    "CompileEvent": (".model", "CompileEvent"),
    "Environment": (".model", "Environment"),
    "Finding": (".model", "Finding"),
    "Fix": (".model", "Fix"),
    "LeafSpec": (".model", "LeafSpec"),
    "Location": (".model", "Location"),
    "Reason": (".model", "Reason"),
    "Timing": (".model", "Timing"),
    "FORMAT_VERSION": (".results", "FORMAT_VERSION"),
    "Result": (".results", "Result"),
    "load_result": (".results", "load_result"),
    "CompareResult": (".results.compare", "CompareResult"),
    "DemoResult": (".results.demo", "DemoResult"),
    "DiffResult": (".results.diff", "DiffResult"),
    "InspectResult": (".results.inspect", "InspectResult"),
    "LintResult": (".results.lint", "LintResult"),
    "MergeResult": (".results.merge", "MergeResult"),
    "ScaleResult": (".results.scale", "ScaleResult"),
    "WatchResult": (".results.watch", "WatchResult"),
    "parse_arg_spec": (".targets", "parse_arg_spec"),
}
__all__ = sorted(_PUBLIC)

if TYPE_CHECKING:
    from typing import Any

    from ._compare import Variant as Variant
    from ._compare import compare as compare
    from ._compare import scope_variants as scope_variants
    from ._demo import demo as demo
    from ._diff import diff as diff
    from ._inspect import inspect as inspect
    from ._lint import lint as lint
    from ._lint import lint_source as lint_source
    from ._merge import merge as merge
    from ._scale import scale as scale
    from ._version import __version__ as __version__
    from ._watch import RecompileError as RecompileError
    from ._watch import RecompileWarning as RecompileWarning
    from ._watch import no_recompile as no_recompile
    from ._watch import watch as watch
    from .errors import JitscopeError as JitscopeError
    from .errors import UsageError as UsageError
    from .ipython import load_ipython_extension as load_ipython_extension
    from .model import ArgSignature as ArgSignature
    from .model import CompileEvent as CompileEvent
    from .model import Environment as Environment
    from .model import Finding as Finding
    from .model import Fix as Fix
    from .model import LeafSpec as LeafSpec
    from .model import Location as Location
    from .model import Reason as Reason
    from .model import Timing as Timing
    from .results import FORMAT_VERSION as FORMAT_VERSION
    from .results import Result as Result
    from .results import load_result as load_result
    from .results.compare import CompareResult as CompareResult
    from .results.demo import DemoResult as DemoResult
    from .results.diff import DiffResult as DiffResult
    from .results.inspect import InspectResult as InspectResult
    from .results.lint import LintResult as LintResult
    from .results.merge import MergeResult as MergeResult
    from .results.scale import ScaleResult as ScaleResult
    from .results.watch import WatchResult as WatchResult
    from .targets import parse_arg_spec as parse_arg_spec


class _Package(types.ModuleType):
    """The package's module type: the import system binds each submodule on its package once it is
    imported (``setattr(jitscope, "lint", <module jitscope.lint>)``); a public name that is also a
    submodule's (``jitscope.lint``: the function, and the rules' subpackage) stays the public object,
    as the eager import left it, whichever is imported first."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _PUBLIC and isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            return  # the import system binding the submodule of that name; anything else is set as asked
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:  # a submodule (jitscope._watch, jitscope.collect): as an eager import made them
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'jitscope' has no attribute {name!r}") from None
    module, attr = _PUBLIC[name]
    value = getattr(importlib.import_module(module, __name__), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
