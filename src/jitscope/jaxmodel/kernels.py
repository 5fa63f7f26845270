"""What a Pallas kernel body is, and what unrolling a Python loop costs there (docs/lint.md, "Pallas kernels").

A function handed to ``pallas_call`` (or ``pl.kernel``, ``core_map``, ``run_scoped``) is a *kernel body*: JAX
traces it once per ``pallas_call`` signature, with ``Ref`` arguments holding one block each, into a kernel
program that Mosaic (TPU) or Triton (GPU) compiles on its own
(https://docs.jax.dev/en/latest/pallas/quickstart.html). Its Python loops run at that one trace, over sizes the
kernel's author fixed (a block's dimension, a number of taps): unrolling them is how kernels are written (the
Pallas docs' own examples loop in Python over blocks), the unrolled copies become straight-line code inside one
kernel, and ``lax.fori_loop`` there is an option for long loops, not a fix. So a Python loop in a kernel body is
advice (``info``), never a cost claim: lint's JS202 says so (tests/test_lint_pallas_kernel.py runs such kernels
under ``jax.jit`` with ``interpret=True``).
"""

from __future__ import annotations

# Qualified names (as imports spell them) of the Pallas calls whose first argument (or ``kernel=``/``body=``)
# is a kernel body, and of the decorators that make the function they decorate one.
PALLAS_KERNEL_CALLS = frozenset({
    "jax.experimental.pallas.pallas_call", "jax.experimental.pallas.kernel", "jax.experimental.pallas.core_map",
    "jax.experimental.pallas.run_scoped", "jax.experimental.pallas.tpu.emit_pipeline",
    "jax.experimental.pallas.tpu.run_scoped", "jax.experimental.pallas.triton.pallas_call",
})
KERNEL_KEYWORDS = ("kernel", "body", "f")


def is_kernel_call(qualname: str | None) -> bool:
    """Is ``qualname`` a Pallas call that traces its function argument as a kernel body?"""
    return qualname in PALLAS_KERNEL_CALLS or (qualname or "").startswith("jax._src.pallas.") and (
        qualname or "").rpartition(".")[2] in ("pallas_call", "kernel", "core_map", "run_scoped")
