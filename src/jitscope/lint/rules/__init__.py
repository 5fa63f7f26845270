"""The rule catalog, one module per rule; ``RULE_CLASSES`` lists them all for the registry."""

from __future__ import annotations

from .js001_syntax_error import SyntaxErrorRule
from .js002_undecodable_file import UndecodableFile
from .js003_too_deep import TooDeepToAnalyse
from .js004_internal_error import InternalError
from .js101_traced_control_flow import TracedControlFlow
from .js102_traced_bool_operator import TracedBoolOperator
from .js103_traced_to_python import TracedToPython
from .js104_numpy_on_traced import NumpyOnTraced
from .js105_numpy_array_traced_index import NumpyArrayTracedIndex
from .js106_bitwise_not_on_bool import BitwiseNotOnBool
from .js201_builtin_reduction import BuiltinReduction
from .js202_python_loop_unrolled import PythonLoopUnrolled
from .js203_jit_in_loop import JitInLoop
from .js204_jit_fresh_function import JitFreshFunction
from .js205_jit_nested_def import JitNestedDef
from .js206_jit_rewrap_in_loop import JitRewrapInLoop
from .js207_host_sync_in_loop import HostSyncInLoop
from .js208_static_arg_per_iteration import StaticArgPerIteration
from .js209_eager_control_flow_fresh_body import EagerControlFlowFreshBody
from .js210_weak_typed_state_field import WeakTypedStateField
from .js301_boolean_mask_index import BooleanMaskIndex
from .js302_data_dependent_shape import DataDependentShape
from .js303_traced_shape_argument import TracedShapeArgument
from .js304_traced_python_int import TracedPythonInt
from .js305_carry_dtype_mismatch import CarryDtypeMismatch
from .js306_int_overflow_literal import IntOverflowLiteral
from .js307_float_overflow_literal import FloatOverflowLiteral
from .js401_print_in_traced import PrintInTraced
from .js402_global_assignment_in_traced import GlobalAssignmentInTraced
from .js403_container_mutation_in_traced import ContainerMutationInTraced
from .js404_traced_value_on_self import TracedValueOnSelf
from .js405_caching_descriptor_keeps_tracer import CachingDescriptorKeepsTracer
from .js406_cache_filled_in_trace import CacheFilledInTrace
from .js501_global_array_capture import GlobalArrayCapture
from .js502_stale_global_capture import StaleGlobalCapture
from .js503_stale_closure_capture import StaleClosureCapture
from .js601_inplace_array_update import InplaceArrayUpdate
from .js602_unhashable_static_arg import UnhashableStaticArg
from .js603_discarded_at_update import DiscardedAtUpdate
from .js604_unhashable_static_instance import UnhashableStaticInstance
from .js605_fresh_function_static_arg import FreshFunctionStaticArg
from .js606_fresh_function_module_field import FreshFunctionModuleField
from .js607_array_in_pytree_metadata import ArrayInPytreeMetadata
from .js608_traced_static_arg import TracedStaticArg
from .js609_jnp_in_static_equality import JnpInStaticEquality
from .js610_donated_buffer_reused import DonatedBufferReused
from .js611_donation_by_keyword_ignored import DonationByKeywordIgnored
from .js612_non_array_pytree_leaf import NonArrayPytreeLeaf
from .js613_jit_option_wrong_kind import JitOptionWrongKind
from .js614_pytree_round_trip import PytreeRoundTrip
from .js615_traced_nondiff_arg import TracedNondiffArg
from .js616_jit_option_names_nothing import JitOptionNamesNothing
from .js617_prng_key_reused import PrngKeyReused
from .js701_observed_jax_error import ObservedJaxError

RULE_CLASSES = (
    SyntaxErrorRule, UndecodableFile, TooDeepToAnalyse, InternalError,
    TracedControlFlow, TracedBoolOperator, TracedToPython, NumpyOnTraced,
    NumpyArrayTracedIndex, BitwiseNotOnBool,
    BuiltinReduction, PythonLoopUnrolled, JitInLoop, JitFreshFunction,
    JitNestedDef, JitRewrapInLoop, HostSyncInLoop, StaticArgPerIteration,
    EagerControlFlowFreshBody, WeakTypedStateField,
    BooleanMaskIndex, DataDependentShape, TracedShapeArgument, TracedPythonInt, CarryDtypeMismatch,
    IntOverflowLiteral, FloatOverflowLiteral,
    PrintInTraced, GlobalAssignmentInTraced, ContainerMutationInTraced, TracedValueOnSelf,
    CachingDescriptorKeepsTracer, CacheFilledInTrace,
    GlobalArrayCapture, StaleGlobalCapture, StaleClosureCapture,
    InplaceArrayUpdate, UnhashableStaticArg,
    DiscardedAtUpdate, UnhashableStaticInstance, FreshFunctionStaticArg, FreshFunctionModuleField, ArrayInPytreeMetadata,
    TracedStaticArg, JnpInStaticEquality, DonatedBufferReused, DonationByKeywordIgnored,
    NonArrayPytreeLeaf, JitOptionWrongKind, PytreeRoundTrip, TracedNondiffArg,
    JitOptionNamesNothing, PrngKeyReused, ObservedJaxError,
)
