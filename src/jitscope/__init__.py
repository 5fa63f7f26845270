"""jitscope: see what jax.jit does to your program, and what to do about it.

The public API is exactly the names below; everything else is private.

PYTEST_DONT_REWRITE: ``jitscope watch -m pytest`` imports jitscope before pytest loads its
plugin; this marker tells pytest not to warn that it cannot rewrite asserts in it (jitscope's
own modules hold no test asserts), so ``-W error`` runs stay clean.
"""

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
