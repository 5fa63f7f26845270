"""Every transform jitscope knows, merged from the wrapper families, looked up by qualified name.

The sets below are derived from the family tables, so lint, watch and inspect share one list:
``COMPILING`` (compiles and caches an executable per function: jit, pmap, filter_jit, nnx.jit),
``WRAPPERS`` (returns a traced version of its first argument), ``BODIES`` (control-flow
primitives: positions and keywords of the functions they trace), ``AXES`` (takes ``in_axes``),
``DIFFERENTIATING`` (takes ``argnums``), ``CUSTOM`` (custom derivative decorators),
``CONTEXTS`` (context managers that change what code inside them makes), ``TRACE_ONLY``.
"""

from __future__ import annotations

from collections.abc import Callable

from .families import ALL_FAMILIES, CALL_CONTEXTS
from .transforms import CallContext, Transform


def registry() -> dict[str, Transform]:
    """Every known transform by qualified name (aliases included), merged from the families."""
    global _REGISTRY
    if _REGISTRY is None:
        reg: dict[str, Transform] = {}
        for fam in ALL_FAMILIES:
            for t in fam:
                for name in (t.qualname, *t.aliases):
                    reg[name] = t
        _REGISTRY = reg
    return _REGISTRY


_REGISTRY: dict[str, Transform] | None = None


def lookup(qualname: str | None) -> Transform | None:
    """The transform a resolved qualified name refers to, or None."""
    return registry().get(qualname) if qualname else None


def by_traced_for(name: str) -> Transform | None:
    """The transform whose traces JAX names ``name`` (``DebugInfo.traced_for``), or None."""
    global _TRACED_FOR
    if _TRACED_FOR is None:
        _TRACED_FOR = {n: t for fam in ALL_FAMILIES for t in fam for n in t.traced_for}
    return _TRACED_FOR.get(name)


_TRACED_FOR: dict[str, Transform] | None = None


def names(pred: Callable[[Transform], bool]) -> frozenset[str]:
    """Qualified names (aliases included) of the transforms for which ``pred`` holds."""
    return frozenset(q for q, t in registry().items() if pred(t))


def wrapper_options(qualname: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(static option names, donation option names) of a wrapper; ((), ()) when unknown.

    Fix texts use these so that advice for ``equinox.filter_jit`` never names ``static_argnums``,
    which it does not have.
    """
    t = lookup(qualname)
    return (t.static_options, t.donate_options) if t else ((), ())


COMPILING = names(lambda t: t.compiles)
WRAPPERS = names(lambda t: t.role == "wrapper")
BODIES: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    q: (t.body_args, t.body_keywords) for q, t in registry().items() if t.role == "body"}
AXES = names(lambda t: t.axes_option is not None)
DIFFERENTIATING = names(lambda t: t.differentiates)
CUSTOM = names(lambda t: t.role == "custom")
NONDIFF_REJECTS_TRACERS = names(lambda t: t.nondiff_rejects_tracers)
CONTEXTS = names(lambda t: t.role == "context")
TRACE_ONLY = names(lambda t: t.trace_only)


def call_context(wrapper: str, attribute: str) -> CallContext | None:
    """The context a wrapper object (its class as ``module.qualname``) calls its jit attribute in, or None."""
    return next((c for c in CALL_CONTEXTS if c.wrapper == wrapper and c.attribute == attribute), None)


def call_contexts() -> tuple[str, ...]:
    """Every known context manager factory (``module.qualname``): all a warm-up may enter."""
    return tuple(dict.fromkeys(c.context for c in CALL_CONTEXTS))
