"""How each public JAX callable that takes a function compiles the user's program (docs/watch.md,
"What counts as a compile").

``tests/test_jax_forms.py`` enumerates the public callables of ``jax``, ``jax.lax``, ``jax.numpy`` and
every importable ``jax.experimental.*`` module that take a function, and fails on one this table does
not classify: a new JAX form is looked at before watch meets it. The forms that compile the user's
program are each a case of ``tests/test_watch_truth.py`` (watch's count equals JAX's own
backend-compile events), named in ``PROBED``.

Kinds:

* ``jit``: compiles the user's function through jit's call path, one program per signature
  (watch sees the call: ``jax.jit``, ``jax.pmap`` and its wrapper).
* ``wrapper``: returns a function; under ``jax.jit`` it is part of that program, and ``jax.jit`` of it
  compiles the user's program (seen through ``__wrapped__`` or the closure: ``checkify``); applied to
  a jitted function, JAX compiles programs of its own from it later (backward, remat, batched).
  Called eagerly it runs op by op.
* ``eager-primitive``: called outside jit, JAX compiles one program of the primitive with the user's
  functions as its bodies (``cond``, ``scan``; ``lax.map``'s body is JAX's, built from the user's lines).
* ``routine``: a routine of JAX's, jitted with the user's functions inside (``jnp.piecewise``).
* ``op-by-op``: called eagerly it runs the user's function one operation at a time: every program
  compiled is one of JAX's own (``internal_compiles``).
* ``none``: compiles nothing of the user's: traces only (``eval_shape``), runs on the host
  (``pure_callback``), or a pytree/registration helper.
"""

from __future__ import annotations

JIT, WRAPPER, PRIMITIVE, ROUTINE, OP_BY_OP, NONE = "jit", "wrapper", "eager-primitive", "routine", "op-by-op", "none"

FORMS: dict[str, str] = {
    # jax
    "jax.jit": JIT, "jax.pmap": JIT,
    "jax.grad": WRAPPER, "jax.value_and_grad": WRAPPER, "jax.jacfwd": WRAPPER, "jax.jacrev": WRAPPER,
    "jax.jacobian": WRAPPER, "jax.hessian": WRAPPER, "jax.jvp": WRAPPER, "jax.vjp": WRAPPER,
    "jax.linearize": WRAPPER, "jax.linear_transpose": WRAPPER, "jax.vmap": WRAPPER, "jax.checkpoint": WRAPPER,
    "jax.remat": WRAPPER, "jax.custom_jvp": WRAPPER, "jax.custom_vjp": WRAPPER, "jax.custom_gradient": WRAPPER,
    "jax.custom_remat": WRAPPER,  # JAX 0.11+
    "jax.named_call": WRAPPER, "jax.shard_map": WRAPPER, "jax.smap": WRAPPER, "jax.fwd_and_bwd": WRAPPER,
    "jax.closure_convert": NONE, "jax.eval_shape": NONE, "jax.make_jaxpr": NONE, "jax.pure_callback": NONE,
    "jax.make_array_from_callback": NONE,
    # jax.lax
    "jax.lax.cond": PRIMITIVE, "jax.lax.switch": PRIMITIVE, "jax.lax.while_loop": PRIMITIVE,
    "jax.lax.fori_loop": PRIMITIVE, "jax.lax.scan": PRIMITIVE, "jax.lax.map": PRIMITIVE,
    "jax.lax.reduce": PRIMITIVE, "jax.lax.reduce_window": PRIMITIVE, "jax.lax.scatter_apply": PRIMITIVE,
    "jax.lax.associative_scan": OP_BY_OP, "jax.lax.custom_linear_solve": OP_BY_OP, "jax.lax.custom_root": OP_BY_OP,
    "jax.lax.platform_dependent": OP_BY_OP, "jax.lax.composite": OP_BY_OP,
    # jax.numpy
    "jax.numpy.piecewise": ROUTINE, "jax.numpy.frompyfunc": ROUTINE, "jax.numpy.ufunc": ROUTINE,
    "jax.numpy.apply_along_axis": OP_BY_OP, "jax.numpy.apply_over_axes": OP_BY_OP, "jax.numpy.fromfunction": OP_BY_OP,
    "jax.numpy.gradient": NONE, "jax.numpy.mask_indices": NONE, "jax.numpy.einsum": NONE, "jax.numpy.pad": NONE,
    "jax.numpy.select": NONE,
    # jax.experimental: new in JAX 0.12 (read from its source, 2026-11-27)
    "jax.experimental.compute_on.compute_on": WRAPPER, "jax.experimental.layout.explicit_layout": WRAPPER,
    "jax.experimental.overlap.program_order": WRAPPER, "jax.experimental.xla_metadata.xla_metadata_call2": WRAPPER,
    "jax.experimental.fused.unsafe_map": NONE,  # Python's map
    "jax.experimental.jet.partial": NONE,  # functools.partial
    "jax.experimental.hijax.vmap_rule": NONE,  # defines a batching rule
    # thunky: an XLA:GPU thunk DSL (its jit raises where XLA:GPU is not available, as on CPU, where jitscope is
    # tested). Its compiles are not attributed to the user's function: open.
    "jax.experimental.thunky.jit": NONE, "jax.experimental.thunky.cond": NONE, "jax.experimental.thunky.switch": NONE,
    "jax.experimental.thunky.while_loop": NONE, "jax.experimental.thunky.async_start": NONE,
    "jax.experimental.thunky.call_jax": NONE, "jax.experimental.thunky.collective_group": NONE,
    # jax.experimental
    "jax.experimental.checkify.checkify": WRAPPER, "jax.experimental.jet.jet": WRAPPER,
    "jax.experimental.jet.jet2": WRAPPER, "jax.experimental.jet.jet_fun": WRAPPER,
    "jax.experimental.jet.jet_subtrace": WRAPPER, "jax.experimental.jet.traceable": WRAPPER,
    "jax.experimental.ode.odeint": ROUTINE, "jax.experimental.ode.runge_kutta_step": OP_BY_OP,
    "jax.experimental.ode.initial_step_size": OP_BY_OP, "jax.experimental.ode.ravel_first_arg": NONE,
    "jax.experimental.ode.ravel_first_arg_": NONE,
    "jax.experimental.custom_partitioning.custom_partitioning": WRAPPER,
    "jax.experimental.compute_on.compute_on2": WRAPPER, "jax.experimental.colocated_python.colocated_python": WRAPPER,
    "jax.experimental.buffer_callback.buffer_callback": NONE,
    "jax.experimental.scheduling_groups.xla_metadata_call": WRAPPER,
    "jax.experimental.sparse.sparsify": WRAPPER, "jax.experimental.sparse.grad": WRAPPER,
    "jax.experimental.sparse.value_and_grad": WRAPPER, "jax.experimental.sparse.jacfwd": WRAPPER,
    "jax.experimental.sparse.jacobian": WRAPPER, "jax.experimental.sparse.jacrev": WRAPPER,
    "jax.experimental.sparse.random_bcoo": NONE,
    "jax.experimental.pallas.pallas_call": WRAPPER, "jax.experimental.pallas.kernel": WRAPPER,
    "jax.experimental.pallas.run_scoped": WRAPPER, "jax.experimental.pallas.run_state": WRAPPER,
    "jax.experimental.pallas.core_map": WRAPPER, "jax.experimental.pallas.BlockSpec": NONE,
    "jax.experimental.pallas.estimate_cost": NONE, "jax.experimental.pallas.lower_as_mlir": NONE,
    "jax.experimental.roofline.roofline": NONE, "jax.experimental.roofline.roofline_and_grad": NONE,
    "jax.experimental.source_mapper.compile_with_env": NONE, "jax.experimental.source_mapper.generate_sourcemaps": NONE,
    "jax.experimental.hijax.aval_method": NONE, "jax.experimental.custom_dce.custom_dce": WRAPPER,
    "jax.experimental.x64_context.contextmanager": NONE,  # JAX 0.8
    "jax.experimental.scheduling_groups.flatten_fun": NONE,
    # helpers that modules re-export (pytree and cache utilities)
    "jax.experimental.fused.debug_info": NONE, "jax.experimental.fused.flatten_fun_nokwargs": NONE,
    "jax.experimental.fused.tree_flatten": NONE, "jax.experimental.fused.weakref_lru_cache": NONE,
    "jax.experimental.jet.register_pytree_node": NONE, "jax.experimental.jet.tree_structure": NONE,
    "jax.experimental.ode.tree_leaves": NONE, "jax.experimental.ode.tree_map": NONE,
}

# The forms that compile the user's program, each with the case of tests/test_watch_truth.py that checks
# watch's count against JAX's own backend-compile events.
PROBED: dict[str, str] = {
    "jax.jit": "jit", "jax.pmap": "pmap", "jax.grad": "grad(jit): forward and backward",
    "jax.value_and_grad": "value_and_grad(jit)", "jax.vjp": "vjp(jit)", "jax.linearize": "linearize(jit)",
    "jax.jvp": "jvp(jit)", "jax.vmap": "vmap(jit)", "jax.checkpoint": "grad(checkpoint(jit))",
    "jax.shard_map": "jit(shard_map)", "jax.experimental.checkify.checkify": "jit(checkify)",
    "jax.custom_jvp": "jit(custom_jvp), grad", "jax.custom_vjp": "jit(custom_vjp), grad",
    "jax.lax.cond": "eager lax.cond", "jax.lax.switch": "eager lax.switch", "jax.lax.while_loop": "eager lax.while_loop",
    "jax.lax.fori_loop": "eager lax.fori_loop", "jax.lax.scan": "eager lax.scan", "jax.lax.map": "eager lax.map",
    "jax.lax.reduce": "eager lax.reduce", "jax.numpy.piecewise": "jnp.piecewise",
    "jax.lax.reduce_window": "eager lax.reduce_window", "jax.lax.scatter_apply": "eager lax.scatter_apply",
    "jax.numpy.frompyfunc": "jnp.frompyfunc, jnp.ufunc", "jax.numpy.ufunc": "jnp.frompyfunc, jnp.ufunc",
    "jax.experimental.ode.odeint": "odeint",
}
