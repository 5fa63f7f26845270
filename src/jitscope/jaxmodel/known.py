"""Every transform jitscope knows, merged from the wrapper families, looked up by qualified name."""

from __future__ import annotations

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


def lookup(qualname: str) -> Transform | None:
    """The transform a resolved qualified name refers to, or None."""
    return registry().get(qualname)


def wrapper_options(qualname: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(static option names, donation option names) of a wrapper; ((), ()) when unknown.

    Fix texts use these so that advice for ``equinox.filter_jit`` never names ``static_argnums``,
    which it does not have.
    """
    t = lookup(qualname)
    return (t.static_options, t.donate_options) if t else ((), ())


def call_context(wrapper: str, attribute: str) -> CallContext | None:
    """The context a wrapper object (its class as ``module.qualname``) calls its jit attribute in, or None."""
    return next((c for c in CALL_CONTEXTS if c.wrapper == wrapper and c.attribute == attribute), None)


def call_contexts() -> tuple[str, ...]:
    """Every known context manager factory (``module.qualname``): all a warm-up may enter."""
    return tuple(dict.fromkeys(c.context for c in CALL_CONTEXTS))
