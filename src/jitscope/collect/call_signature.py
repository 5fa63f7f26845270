"""The argument signature of one call as jit sees it, for the commands that call a function themselves.

inspect and compare describe the call they make with the same builder watch uses for the calls it
observes, so a signature reads the same in every command.
"""

from __future__ import annotations

from typing import Any

from ..model import ArgSignature
from .watch_signature import call_signature


def call_signature_of(fn: Any, static_argnums: tuple[int, ...], static_argnames: tuple[str, ...], args: tuple,
                      kwargs: dict, arrays_only: bool = False) -> ArgSignature:
    """The signature of ``fn(*args, **kwargs)`` under jit, leaf paths named by parameter (``x``, ``params['w']``).

    ``collect.watch_signature.call_signature`` (the builder watch uses), given only the static
    argnums that index a positional argument of this call (jit resolves ``static_argnames`` to
    argnums too; an argument passed by keyword has none) and the keyword arguments in sorted
    order, as jit flattens them, so that the leaves line up with the jaxpr's inputs. ``arrays_only``:
    every non-array leaf is a static value (``equinox.filter_jit``).
    """
    n = len(args)
    nums = tuple(i for i in static_argnums if -n <= i < n)
    return call_signature(fn, nums, tuple(static_argnames), tuple(args), dict(sorted(kwargs.items())),
                          arrays_only=arrays_only)
