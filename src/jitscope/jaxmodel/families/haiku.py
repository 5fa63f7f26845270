"""Haiku (https://dm-haiku.readthedocs.io/en/latest/api.html#modules-parameters-and-state).

Haiku has no transform of its own that jit must know: ``hk.transform(f)`` returns ``init``/``apply`` pure
functions, and a user jits ``apply`` (``jax.jit(model.apply)``). An ``hk.Module`` runs only inside such a
function (``hk.Module`` raises outside ``transform``), so its ``__call__`` (and the methods it calls) run on
whatever the jitted ``apply`` traces: the parameters ``hk.get_parameter`` returns and the inputs the
transformed function passes. That is the module-call convention equinox and Flax modules follow
(``lint/callgraph.py``'s ``MODULE_BASES``): the first input is the data, other inputs are tracers only where
annotated or used as arrays (``is_training: bool`` stays the caller's Python value).
"""

from __future__ import annotations

# Module classes whose `__call__` runs under its user's jit of the transformed function.
MODULE_BASES = ("haiku.Module", "haiku._src.module.Module")
