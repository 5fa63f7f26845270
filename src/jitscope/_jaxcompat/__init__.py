"""The only package allowed to import ``jax._src``. Everything version-sensitive lives here, one module
per seam: ``hooks`` (jit calls, lowering, compile), ``dispatch`` (the C++ fast path, executing
programs), ``programs`` (programs compiled outside the user's jit call), ``tracing`` (where JAX runs Python under a
trace, tracer kinds), ``source`` (user files and
frames, jit options), ``cache`` (persistent-cache logs), ``distributed`` (process index, key-value
store), ``capabilities`` (each hook feature-detected), ``_base`` (tested range, notices).

Each helper below states which JAX versions it was checked on; tests/test_jaxcompat.py
exercises every one on the installed JAX, so an upgrade that breaks one fails loudly
in one place. Prefer public APIs (jax.monitoring, jax.stages, jax.make_jaxpr) elsewhere.
"""


# Re-exported by name (the rest of jitscope imports from here).
from ._base import FULL_SUITE_JAX as FULL_SUITE_JAX
from ._base import TESTED_JAX as TESTED_JAX
from ._base import TESTED_MINORS as TESTED_MINORS
from ._base import TESTED_RANGE as TESTED_RANGE
from ._base import array_committed as array_committed
from ._base import tracing_context_names as tracing_context_names
from ._base import treedef_node_layout as treedef_node_layout
from ._base import unregister_listener as unregister_listener
from .cache import CACHE_KEY_LOGGER as CACHE_KEY_LOGGER
from .cache import CACHE_LOGGERS as CACHE_LOGGERS
from .cache import cache_key_logging as cache_key_logging
from .cache import cache_refuses_host_callbacks as cache_refuses_host_callbacks
from .cache import parse_cache_log as parse_cache_log
from .cache import say_cache_key_missing as say_cache_key_missing
from .cache import xla_cache_in_key as xla_cache_in_key
from .capabilities import CAPABILITY_USES as CAPABILITY_USES
from .capabilities import capabilities as capabilities
from .capabilities import version_notice as version_notice
from .dispatch import executing_code as executing_code
from .dispatch import fast_path_settings as fast_path_settings
from .dispatch import fastpath_blockers as fastpath_blockers
from .dispatch import install_fastpath_hook as install_fastpath_hook
from .distributed import KeyValueStore as KeyValueStore
from .distributed import distributed_process as distributed_process
from .distributed import distributed_store as distributed_store
from .hooks import COMPILE_EVENT as COMPILE_EVENT
from .hooks import EXPLAIN_LOGGERS as EXPLAIN_LOGGERS
from .hooks import EXPLAIN_NOISY_LOGGERS as EXPLAIN_NOISY_LOGGERS
from .hooks import LOWER_EVENT as LOWER_EVENT
from .hooks import TRACE_EVENT as TRACE_EVENT
from .hooks import CompileGuard as CompileGuard
from .hooks import install_compile_guard as install_compile_guard
from .hooks import install_jit_call_hook as install_jit_call_hook
from .hooks import install_stage_hook as install_stage_hook
from .hooks import jit_options as jit_options
from .hooks import shield_cache_miss_explainer as shield_cache_miss_explainer
from .programs import ProgramSource as ProgramSource
from .programs import derived_program_role as derived_program_role
from .programs import is_literal as is_literal
from .programs import jaxpr_of_call_result as jaxpr_of_call_result
from .programs import jaxprs_in_params as jaxprs_in_params
from .programs import optimized_hlo_text as optimized_hlo_text
from .programs import pmap_user_call as pmap_user_call
from .programs import program_source as program_source
from .programs import scan_layout as scan_layout
from .programs import transform_name as transform_name
from .source import StackCache as StackCache
from .source import add_program_path as add_program_path
from .source import exception_user_frames as exception_user_frames
from .source import is_library_file as is_library_file
from .source import is_program_file as is_program_file
from .source import is_user_file as is_user_file
from .source import jit_options_text as jit_options_text
from .source import jit_shardings as jit_shardings
from .source import unwrap_jit as unwrap_jit
from .tracing import install_trace_hook as install_trace_hook
from .tracing import trace_hook_missing as trace_hook_missing
from .tracing import tracer_kind as tracer_kind
from .tracing import tracing_now as tracing_now
