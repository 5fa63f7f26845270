"""The only module allowed to import ``jax._src``. Everything version-sensitive lives here.

Each helper below states which JAX versions it was checked on; tests/test_jaxcompat.py
exercises every one on the installed JAX, so an upgrade that breaks one fails loudly
in one place. Prefer public APIs (jax.monitoring, jax.stages, jax.make_jaxpr) elsewhere.
"""

from __future__ import annotations

TESTED_JAX = (">=0.10.0", "<0.11")

# --- watch: compile-event capture -------------------------------------------

# --- inspect: jaxpr source info ---------------------------------------------
