"""Build and measure variants of a computation: eager, jitted, jitted at different scopes.

A ``Variant`` is a named callable plus what must be true while it runs (module globals
rebound, e.g. ``mod.f = jax.jit(f)`` so that an un-jitted ``g`` calls a jitted ``f``).
``measure_variant`` records, from a cold cache (``jax.clear_caches()``, and JAX's persistent
on-disk compilation cache switched off so no compile is a disk read):

1. for jitted variants, the ahead-of-time split ``fn.trace(...)``, ``.lower()``, ``.compile()``;
2. the first call (trace + compile + run), counting XLA backend compiles via ``jax.monitoring``;
3. the steady state with ``clock.measure`` (blocking on every output leaf).

Comparing several variants fairly (``jitscope compare``) takes three more pieces, used by
``_compare.run_compare``: ``measure_variant(warm=True)`` calls the variant once, untimed, before its
caches are cleared and anything is timed (the process-wide first-use costs that
``jax.clear_caches()`` does not undo would otherwise be charged to whichever variant happens to be
measured first: two identical functions then differ by 20% or more in their "cold" first call);
``cold_call`` times one more first call from cleared caches; ``steady_round`` takes one round of
steady samples, so that rounds of all variants can be interleaved in rotating order and share the
machine's drift.

Nothing here decides anything; ``analyze/compare.py`` does the arithmetic.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .._jaxcompat import COMPILE_EVENT
from .._jaxcompat import unwrap_jit as _jit_parts
from .._progress import stage
from .._serde import Record
from ..model import Timing
from ._errors import error_line
from .clock import block, measure, persistent_cache_disabled, time_once
from .jit_equivalent import jit_equivalent, same_wrapper, wrapper_of
from .lowering import jit_fresh, time_stages

# Enough for a stable median of a microsecond call; keeps a saved result small.
MAX_SAMPLES = 2000



@dataclass
class VariantResult(Record):
    """One variant as measured.

    ``first_call`` holds calls from a cold cache (trace + lower + compile + run for jitted code;
    eager code compiles each primitive on first use): one, or up to three when they are cheap
    (``compare`` repeats them in rotating order). ``steady`` is the per-call time once warm.
    ``phases`` holds the ahead-of-time ``trace``/``lower``/``compile`` seconds of a jitted variant.
    ``compiles_first_call`` / ``compile_seconds_first_call`` count the XLA backend compiles seen
    (via ``jax.monitoring``) during the first call; ``compiles_per_call`` is the average number of
    backend compiles per steady-state call (0 when jit's cache works, > 0 when every call
    recompiles). ``error`` is set when the variant could not be built or raised; ``error_stage``
    says where (``resolve``, ``first_call``, ``steady``, ``output``).
    """

    name: str
    jitted: bool = False
    description: str = ""
    first_call: Timing | None = None
    steady: Timing | None = None
    phases: dict[str, float] = field(default_factory=dict)
    compiles_first_call: int | None = None
    compile_seconds_first_call: float | None = None
    compiles_per_call: float | None = None
    speedup: float | None = None  # reference steady median / this steady median
    # The steady medians of this variant and the reference cannot be told apart (intervals overlap or
    # under 10% apart): the table says "within noise" rather than a speedup. None for the reference.
    speedup_within_noise: bool | None = None
    # The steady median of each interleaved round, in order (compare; empty when measured in one pass):
    # round r of every variant ran in the same pass, so verdicts compare variants round by round.
    steady_rounds: list[float] = field(default_factory=list)
    output: str = ""  # short description of the output pytree, e.g. "f32[1000]"
    error: str | None = None
    error_stage: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Measured successfully (it may still have an output that differs from the reference)."""
        return self.error is None and self.first_call is not None and self.steady is not None


@dataclass
class Binding:
    """Set ``namespace.name = value`` (a module or a globals dict) while a variant runs."""

    namespace: Any
    name: str
    value: Any


@dataclass
class Variant:
    """A named way of computing the same thing.

    ``jitted`` None means "detect": a ``jax.jit`` object (it has ``.trace`` and ``.lower``) is
    jitted. ``bindings`` are applied around every call of the variant and restored afterwards.
    ``check_output=False`` skips the numerical comparison (e.g. a NumPy variant drawing
    different random numbers). ``error`` marks a variant that could not be built; it is
    reported as failed without running.
    """

    name: str
    fn: Callable[..., Any] | None
    jitted: bool | None = None
    description: str = ""
    bindings: list[Binding] = field(default_factory=list)
    check_output: bool = True
    error: str | None = None
    inner_calls: list[int] | None = None  # counter shared with a rebound inner function
    # JAX settings (``jax.config`` names -> values) in force while this variant is measured: its
    # compiles happen under them (``effort_variants``). Restored afterwards.
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def is_jitted(self) -> bool:
        """Declared jitted, or (when ``jitted`` is None) a ``jax.jit`` object."""
        if self.jitted is not None:
            return self.jitted
        return is_jit_object(self.fn)


def is_jit_object(fn: Any) -> bool:
    """True for ``jax.jit``-wrapped callables (they offer the AOT ``trace``/``lower`` stages) and the
    library jit wrappers jitscope knows (``equinox.filter_jit``, ``flax.nnx.jit``)."""
    return fn is not None and ((hasattr(fn, "lower") and hasattr(fn, "trace")) or bool(wrapper_of(fn)))


def plain_function(fn: Any) -> Any:
    """The Python function under a ``jax.jit`` wrapper (``fn`` itself if it is not one).

    Not ``_jaxcompat.unwrap_jit``, which also returns the jit object's static arguments (see
    ``jit_like``).
    """
    return getattr(fn, "__wrapped__", fn) if is_jit_object(fn) else fn



def static_args_of(fn: Any) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """``(static_argnums, static_argnames)`` of a ``jax.jit`` object; ``((), ())`` for anything else."""
    parts = _jit_parts(fn)
    return ((), ()) if parts is None else (parts[1], parts[2])


def jit_like(fn: Any, static_argnames: tuple[str, ...] | list[str] = ()) -> Any:
    """``jax.jit`` of ``fn``'s plain function, keeping the static arguments of ``fn`` when it is
    already a jit object (its ``static_argnums`` and ``static_argnames``), plus ``static_argnames``; a
    library wrapper (``equinox.filter_jit``, ``flax.nnx.jit``) is rebuilt as the same wrapper."""
    import jax

    rewrapped = same_wrapper(fn, plain_function(fn), tuple(static_argnames))
    if rewrapped is not None:  # equinox.filter_jit / flax.nnx.jit: their own static rules
        return rewrapped
    nums, names = static_args_of(fn)
    names = tuple(dict.fromkeys((*names, *static_argnames)))
    return jax.jit(plain_function(fn), static_argnums=nums or None, static_argnames=names or None)


@contextlib.contextmanager
def rebind(bindings: list[Binding]) -> Iterator[None]:
    """Apply ``bindings`` for the duration of the block; always restore the old values."""
    missing = object()
    saved: list[tuple[Binding, Any]] = []
    try:
        for b in bindings:
            if isinstance(b.namespace, dict):
                saved.append((b, b.namespace.get(b.name, missing)))
                b.namespace[b.name] = b.value
            else:
                saved.append((b, getattr(b.namespace, b.name, missing)))
                setattr(b.namespace, b.name, b.value)
        yield
    finally:
        for b, old in reversed(saved):
            if isinstance(b.namespace, dict):
                if old is missing:
                    b.namespace.pop(b.name, None)
                else:
                    b.namespace[b.name] = old
            elif old is missing:
                delattr(b.namespace, b.name)
            else:
                setattr(b.namespace, b.name, old)


@contextlib.contextmanager
def jax_settings(config: dict[str, Any]) -> Iterator[None]:
    """Apply ``jax.config`` settings for the duration of the block; always restore the old values."""
    import jax

    saved: list[tuple[str, Any]] = []
    try:
        for name, value in config.items():
            saved.append((name, getattr(jax.config, name)))
            jax.config.update(name, value)
        yield
    finally:
        for name, old in reversed(saved):
            jax.config.update(name, old)


# The compile-effort flags ``--effort`` measures, with the settings each gives and where JAX has it (read from
# each release's jax/_src/config.py): feature-detected on the installed JAX, never by its version.
EFFORT_FLAGS: tuple[tuple[str, tuple[tuple[str, Any], ...], str], ...] = (
    ("jax_optimization_level", tuple((f"opt {lv}", lv) for lv in ("O0", "O1", "O2", "O3")),
     "in JAX 0.8 - 0.12, not in 0.6"),
    ("jax_exec_time_optimization_effort", (("effort -1", -1.0), ("effort +1", 1.0)),
     "in JAX 0.6 - 0.10, removed in 0.11"),
)


def effort_settings() -> list[tuple[str, dict[str, Any]]]:
    """The compile-effort settings the installed JAX has, as (label, ``jax.config`` settings).

    ``jax_optimization_level`` (XLA's optimisation level, O0-O3) and
    ``jax_exec_time_optimization_effort`` (-1: compile faster, +1: optimise the program harder),
    each where this JAX defines it (``EFFORT_FLAGS``; feature-detected).
    """
    import jax

    return [(label, {flag: value}) for flag, settings, _ in EFFORT_FLAGS if hasattr(jax.config, flag)
            for label, value in settings]


def effort_flags_missing() -> list[str]:
    """One line per compile-effort flag of ``EFFORT_FLAGS`` the installed JAX does not have (so ``--effort``
    measures no variant of it), saying which variants are left out and which releases have the flag."""
    import jax

    return [f"JAX {jax.__version__} has no {flag} ({where}): "
            f"{', '.join(f'jit [{label}]' for label, _ in settings)} left out"
            for flag, settings, where in EFFORT_FLAGS if not hasattr(jax.config, flag)]


def effort_variants(fn: Any, static_argnames: tuple[str, ...] | list[str] = ()) -> list[Variant]:
    """``jax.jit`` of ``fn`` once per compile-effort setting (``effort_settings``), named ``jit [opt O1]``."""
    return [Variant(f"jit [{label}]", jit_like(fn, static_argnames), True,
                    "jax.jit compiled with " + ", ".join(f"{k}={v}" for k, v in config.items()), config=config)
            for label, config in effort_settings()]


def _label(fn: Any) -> str:
    return getattr(plain_function(fn), "__name__", None) or type(fn).__name__


def _rebinder(outer: Callable[..., Any], inner_module: ModuleType | dict,
              inner_name: str) -> tuple[Any, Any, Any, Callable[[Any], list[Binding]]]:
    """``(outer_fn, original inner, inner_fn, bound)`` where ``bound(value)`` rebinds the inner name
    in its module and in ``outer``'s own globals when they hold the same object."""
    outer_fn = plain_function(outer)
    ns_get = inner_module.get if isinstance(inner_module, dict) else functools.partial(getattr, inner_module)
    original = ns_get(inner_name, None)
    if original is None:
        raise KeyError(inner_name)
    namespaces: list[Any] = [inner_module]
    outer_globals = getattr(outer_fn, "__globals__", None)
    inner_globals = inner_module if isinstance(inner_module, dict) else vars(inner_module)
    if outer_globals is not None and outer_globals is not inner_globals and outer_globals.get(inner_name) is original:
        namespaces.append(outer_globals)

    def bound(value: Any) -> list[Binding]:
        return [Binding(ns, inner_name, value) for ns in namespaces]

    return outer_fn, original, plain_function(original), bound


def scope_variants(outer: Callable[..., Any], inner_module: ModuleType | dict, inner_name: str,
                   static_argnames: tuple[str, ...] = ()) -> list[Variant]:
    """Eager, jit(inner), jit(outer) and jit(both) for an outer function that calls an inner one.

    The inner function is looked up as ``inner_module.inner_name`` and, while each variant runs,
    rebound there (and in ``outer``'s own globals when it holds the same object) to the plain
    or the jitted inner function. ``outer`` and the inner function may themselves be jitted in
    the source; they are unwrapped first so "eager" really is eager, and re-jitted with their own
    static arguments (``static_argnums``/``static_argnames`` of the source's ``jax.jit``) plus
    ``static_argnames``.
    """
    outer_fn, original, inner_fn, bound = _rebinder(outer, inner_module, inner_name)
    f, g = _label(inner_fn), _label(outer_fn)

    def counted(fn: Callable[..., Any], counter: list[int]) -> Callable[..., Any]:
        @functools.wraps(inner_fn)
        def call(*a: Any, **k: Any) -> Any:
            counter[0] += 1
            return fn(*a, **k)
        return call

    jf_calls, both_calls = [0], [0]
    static = tuple(static_argnames)
    return [
        Variant("eager", outer_fn, False, f"{g} and {f} run op by op", bound(inner_fn)),
        Variant(f"jit({f})", outer_fn, False, f"{g} in Python calls jax.jit({f})",
                bound(counted(jit_like(original), jf_calls)), inner_calls=jf_calls),
        Variant(f"jit({g})", jit_like(outer, static), True,
                f"jax.jit({g}); {f} traced inline", bound(inner_fn)),
        Variant("jit(both)", jit_like(outer, static), True,
                f"jax.jit({g}) calling jax.jit({f}): the inner jit is inlined",
                bound(counted(jit_like(original), both_calls)), inner_calls=both_calls),
    ]


def barrier_variant(outer: Callable[..., Any], inner_module: ModuleType | dict, inner_name: str,
                    static_argnames: tuple[str, ...] = ()) -> Variant:
    """``jax.jit(outer)`` with every result of the inner function behind ``lax.optimization_barrier``.

    The same program as writing ``state = jax.lax.optimization_barrier(inner(state))`` at each call
    site: XLA may not fuse across the barrier, so each call's result is materialised once instead of
    being recomputed inside every consumer fusion.
    """
    import jax

    outer_fn, _, inner_fn, bound = _rebinder(outer, inner_module, inner_name)
    f, g = _label(inner_fn), _label(outer_fn)

    @functools.wraps(inner_fn)
    def behind_barrier(*a: Any, **k: Any) -> Any:
        return jax.lax.optimization_barrier(inner_fn(*a, **k))

    return Variant(f"jit({g}) + barrier", jit_like(outer, static_argnames), True,
                   f"jax.jit({g}) with each {f}(...) result behind lax.optimization_barrier",
                   bound(behind_barrier))


class CompileCounter:
    """Counts XLA backend compiles (and their seconds) reported through ``jax.monitoring``."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0

    def __call__(self, event: str, duration_secs: float, **kwargs: Any) -> None:
        if event == COMPILE_EVENT:
            self.count += 1
            self.seconds += duration_secs

    def __enter__(self) -> CompileCounter:
        import jax.monitoring

        jax.monitoring.register_event_duration_secs_listener(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        from .._jaxcompat import unregister_listener

        unregister_listener("duration", self)


def aot_phases(fn: Any, args: tuple, kwargs: dict, keep: dict[str, Any] | None = None) -> dict[str, float]:
    """Seconds for ``fn.trace(*args, **kwargs)``, ``.lower()`` and ``.compile()`` (cold caches: the
    in-memory ones cleared, the persistent one off). ``keep`` receives the ``lowered`` and
    ``compiled`` objects (for an analysis of the program that was timed)."""
    import jax

    if not (hasattr(fn, "trace") and hasattr(fn, "lower")):  # equinox.filter_jit: its jax.jit equivalent
        eq = jit_equivalent(fn, args, kwargs)
        fn, args, kwargs = jit_fresh(eq.fun, eq.static_argnames, eq.static_argnums), eq.args, eq.kwargs
    jax.clear_caches()
    with persistent_cache_disabled():
        ts = time_stages(fn, args, kwargs)
    if ts.error is not None:
        raise ts.error
    if keep is not None:
        keep["lowered"], keep["compiled"] = ts.lowered, ts.compiled
    return ts.seconds


def describe_output(out: Any) -> str:
    """Short jaxpr-style description of an output pytree: ``f32[1000]``, ``(f32[], i32[3])``."""
    from ..model import ArgSignature

    try:
        sig = ArgSignature.of((out,))
    except Exception:  # an output jax cannot flatten is still an output
        return type(out).__name__
    parts = [leaf.short() for leaf in sig.leaves]
    return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"


def cold_call(variant: Variant, args: tuple, kwargs: dict) -> float:
    """Seconds of one more first call from cleared caches (trace + compile + run for jitted code)."""
    import jax

    fn = variant.fn
    if fn is None:
        raise ValueError(f"variant {variant.name} has no function")
    with rebind(variant.bindings), jax_settings(variant.config), persistent_cache_disabled():
        jax.clear_caches()
        return time_once(lambda: fn(*args, **kwargs))[0]


def steady_round(variant: Variant, args: tuple, kwargs: dict, *, budget_s: float, min_samples: int,
                 max_samples: int) -> tuple[list[float], int]:
    """One round of steady-state samples, and the backend compiles seen during the timed calls.

    One untimed call goes first: the round before may have been another variant's, whose cold calls
    cleared JAX's caches (eager ops compile again once) and whose data evicted the CPU caches.
    """
    fn = variant.fn
    if fn is None:
        raise ValueError(f"variant {variant.name} has no function")
    with rebind(variant.bindings), jax_settings(variant.config), persistent_cache_disabled():
        block(fn(*args, **kwargs))
        with CompileCounter() as cc:
            t = measure(lambda: fn(*args, **kwargs), budget_s=budget_s, min_samples=min_samples,
                        max_samples=max_samples, warmup=0)
    return t.samples, cc.count


def measure_variant(variant: Variant, args: tuple, kwargs: dict, *, budget_s: float = 0.5,
                    min_samples: int = 5, max_samples: int = MAX_SAMPLES, phases: bool = True,
                    warm: bool = False, keep: dict[str, Any] | None = None) -> tuple[VariantResult, Any]:
    """Measure one variant from a cold cache; return its record and its first output (None on error).

    With ``phases``, ``keep`` receives the ``lowered`` and ``compiled`` program of a jitted variant.
    With ``warm``, one untimed call goes first (its errors are left to the timed calls to record).
    ``compiles_per_call`` counts the backend compiles of the timed steady calls only.

    The persistent compilation cache is off for the whole measurement (``persistent_cache_disabled``):
    otherwise the AOT compile would write the executable to disk and the "first call" would load it.
    """
    import jax

    res = VariantResult(variant.name, variant.is_jitted, variant.description)
    if variant.error is not None or variant.fn is None:
        res.error, res.error_stage = variant.error or "no function", "resolve"
        return res, None
    fn = variant.fn
    stage(f"measuring {variant.name}")
    with rebind(variant.bindings), jax_settings(variant.config), persistent_cache_disabled():
        if warm:
            try:
                block(fn(*args, **kwargs))
            except Exception:  # noqa: BLE001 - the timed first call below records it
                pass
            jax.clear_caches()
        if phases and res.jitted and is_jit_object(fn):
            try:
                res.phases = aot_phases(fn, args, kwargs, keep)
            except Exception as e:  # the first call below reports the real failure, if any
                res.notes.append(f"trace/lower/compile split unavailable: {error_line(e)}")
        jax.clear_caches()
        if variant.inner_calls is not None:
            variant.inner_calls[0] = 0
        try:
            with CompileCounter() as cc:
                first_s, out = time_once(lambda: fn(*args, **kwargs))
        except Exception as e:
            res.error, res.error_stage = error_line(e), "first_call"
            return res, None
        res.first_call = Timing.single(first_s)
        res.compiles_first_call, res.compile_seconds_first_call = cc.count, cc.seconds
        res.output = describe_output(out)
        if variant.inner_calls is not None and variant.inner_calls[0] == 0:
            res.notes.append("the rebound inner function was never called: this variant equals its un-rebound twin")
        try:
            if first_s < 0.05:  # the first call already warmed a slow variant
                block(fn(*args, **kwargs))
            with CompileCounter() as cc:
                res.steady = measure(lambda: fn(*args, **kwargs), budget_s=budget_s, min_samples=min_samples,
                                     max_samples=max(max_samples, min_samples), warmup=0)
            res.compiles_per_call = cc.count / len(res.steady.samples)
        except Exception as e:
            res.error, res.error_stage = error_line(e), "steady"
            return res, out
    return res, out
