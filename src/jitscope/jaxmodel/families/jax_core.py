"""JAX's own transformations (https://docs.jax.dev/en/latest/jax.html)."""

from __future__ import annotations

from ..transforms import Transform

_JIT_DOC = "https://docs.jax.dev/en/latest/_autosummary/jax.jit.html"
_GOTCHAS = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#control-flow"
_CF = "https://docs.jax.dev/en/latest/control-flow.html"

TRANSFORMS = (
    Transform("jax.jit", "jax", "abstract", compiles=True,
              static_options=("static_argnums", "static_argnames"),
              donate_options=("donate_argnums", "donate_argnames"), doc=_JIT_DOC,
              aliases=("jax.experimental.pjit.pjit", "jax.experimental.pjit")),
    Transform("jax.pmap", "jax", "abstract", compiles=True, static_options=("static_broadcasted_argnums",),
              donate_options=("donate_argnums",), doc="https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html"),
    Transform("jax.vmap", "jax", "abstract", doc="https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html"),
    Transform("jax.grad", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.value_and_grad", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.jacfwd", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.jacrev", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.hessian", "jax", "concrete", differentiates=True, doc=_GOTCHAS),
    Transform("jax.jvp", "jax", "concrete", doc=_GOTCHAS),
    Transform("jax.vjp", "jax", "concrete", doc=_GOTCHAS),
    Transform("jax.linearize", "jax", "concrete", doc=_GOTCHAS),
    Transform("jax.checkpoint", "jax", "abstract", static_options=("static_argnums",),
              doc="https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html",
              aliases=("jax.remat", "jax.ad_checkpoint.checkpoint", "jax.ad_checkpoint.remat")),
    Transform("jax.eval_shape", "jax", "abstract", doc="https://docs.jax.dev/en/latest/_autosummary/jax.eval_shape.html"),
    Transform("jax.make_jaxpr", "jax", "abstract", static_options=("static_argnums",),
              doc="https://docs.jax.dev/en/latest/_autosummary/jax.make_jaxpr.html"),
    Transform("jax.shard_map", "jax", "abstract",
              doc="https://docs.jax.dev/en/latest/notebooks/shard_map.html",
              aliases=("jax.experimental.shard_map.shard_map",)),
    Transform("jax.lax.scan", "jax", "abstract", body_args=(0,), body_keywords=("f",), doc=_CF),
    Transform("jax.lax.fori_loop", "jax", "abstract", body_args=(2,), body_keywords=("body_fun",), doc=_CF),
    Transform("jax.lax.while_loop", "jax", "abstract", body_args=(0, 1), body_keywords=("cond_fun", "body_fun"),
              doc=_CF),
    Transform("jax.lax.cond", "jax", "abstract", body_args=(1, 2), body_keywords=("true_fun", "false_fun"), doc=_CF),
    Transform("jax.lax.switch", "jax", "abstract", body_args=(1,), body_keywords=("branches",), doc=_CF),
    Transform("jax.lax.map", "jax", "abstract", body_args=(0,), body_keywords=("f",), doc=_CF),
    Transform("jax.lax.associative_scan", "jax", "abstract", body_args=(0,), body_keywords=("fn",), doc=_CF),
)
