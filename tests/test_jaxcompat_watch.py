"""The watch section of _jaxcompat on the installed JAX: event names, the jit slow-path hook,
the explain logger, and the committed-array check. An upgrade that moves any of these fails here."""

from __future__ import annotations

import logging

import jax
import jax.numpy as jnp

from jitscope import _jaxcompat as compat


def test_monitoring_event_names_match_jax():
    from jax._src import dispatch

    assert compat.TRACE_EVENT == dispatch.JAXPR_TRACE_EVENT
    assert compat.LOWER_EVENT == dispatch.JAXPR_TO_MLIR_MODULE_EVENT
    assert compat.COMPILE_EVENT == dispatch.BACKEND_COMPILE_EVENT


def test_jit_call_hook_sees_function_and_arguments_only_on_slow_path():
    from jax._src import pjit

    seen, exits = [], []
    before = pjit._infer_params
    uninstall = compat.install_jit_call_hook(
        lambda fun, sn, sna, args, kwargs, ji: seen.append((fun, sn, sna, args, kwargs)) or len(seen),
        exits.append)
    try:
        def f(x, n):
            return x * n

        g = jax.jit(f, static_argnums=1)
        x = jnp.ones(2)
        g(x, 3)
        g(x, 3)  # warm: the C++ fast path never reaches the hook
    finally:
        uninstall()
    assert pjit._infer_params is before
    mine = [s for s in seen if s[0] is f]
    assert len(mine) == 1
    fun, sn, sna, args, kwargs = mine[0]
    assert sn == (1,) and args[1] == 3 and args[0] is x and kwargs == {}
    assert len(exits) == len(seen)


def test_explain_logger_carries_cache_miss_text():
    records = []

    class H(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    loggers = [logging.getLogger(name) for name in compat.EXPLAIN_LOGGERS]  # one of them, by JAX version
    h = H()
    propagate = [lg.propagate for lg in loggers]
    for lg in loggers:
        lg.addHandler(h)
        lg.propagate = False
    prev = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    try:
        jax.jit(lambda v: v + 1)(jnp.ones(3))
    finally:
        jax.config.update("jax_explain_cache_misses", prev)
        for lg, was in zip(loggers, propagate):
            lg.removeHandler(h)
            lg.propagate = was
    assert any("TRACING CACHE MISS" in r for r in records)


def test_array_committed():
    x = jnp.ones(2)
    assert compat.array_committed(x) is False
    assert compat.array_committed(jax.device_put(x, jax.devices()[0])) is True


def _lowered_programs(body):  # type: ignore[no-untyped-def]
    """(module name, ClosedJaxpr, role of the stack) of every program JAX lowers while ``body`` runs."""
    import sys

    seen = []
    uninstall = compat.install_stage_hook(
        lambda name, jaxpr: seen.append((name, jaxpr, compat.derived_program_role(sys._getframe(1)))), None)
    try:
        body()
    finally:
        uninstall()
    return seen


def test_program_source_names_the_users_function_behind_derived_and_eager_programs():
    from jax import lax

    def f_src(x):
        return jnp.sum(jnp.sin(x))

    def f_body(x):
        return x + 1

    seen = _lowered_programs(lambda: (jax.grad(jax.jit(f_src))(jnp.ones(3)),
                                      lax.cond(True, f_body, f_body, jnp.ones(3)),
                                      jnp.ones(3) * 2))
    sources = [(compat.program_source(j), role) for _, j, role in seen]
    user = [(s.function, s.primitive, role) for s, role in sources if s is not None]
    # forward and backward of f_src (the backward under ad's backward pass), the eager cond; nothing else
    assert user == [("f_src", None, "derived"), ("f_src", None, "backward"), ("cond", "cond", "derived")]
    cond = next(s for s, _ in sources if s is not None and s.primitive)
    assert [b[0] for b in cond.bodies] == ["f_body", "f_body"] and cond.file == __file__
    assert [tuple(a.shape) for a in cond.in_avals] == [(), (3,)]
    assert compat.program_source(object()) is None  # not a jaxpr: never raises


def test_pmap_user_call_finds_the_users_function():
    from jax._src import pjit

    def f_pm(x):
        return x * 2

    found = []
    uninstall = compat.install_jit_call_hook(
        lambda fun, sn, sna, args, kwargs, ji: found.append(compat.pmap_user_call(fun, args, kwargs)), lambda t: None)
    try:
        jax.pmap(f_pm)(jnp.ones((1, 3)))
    finally:
        uninstall()
    assert pjit._infer_params is not None
    users = [f for f in found if f is not None]
    if tuple(int(p) for p in jax.__version__.split(".")[:2]) < (0, 8):
        assert users == []  # 0.6: pmap has its own path, no jit call
        return
    assert len(users) == 1 and users[0][0] is f_pm
    assert [tuple(a.shape) for a in users[0][1]] == [(1, 3)]
    assert compat.pmap_user_call(f_pm, (), {}) is None  # a plain function is no pmap wrapper


def test_stage_hook_hands_over_each_lowered_module():
    """``on_module`` gets the MLIR module as lowering returns: the capture engine fingerprints it
    (collect/program_text.py); uninstalling restores JAX's function."""
    from jax._src.interpreters import mlir

    original = mlir.lower_jaxpr_to_module
    modules = []
    uninstall = compat.install_stage_hook(lambda name, jaxpr: None, None,
                                          on_module=lambda name, module: modules.append((name, module)))
    try:
        jax.jit(lambda x: jnp.cos(x) * 5.0)(jnp.ones(7))
    finally:
        uninstall()
    assert mlir.lower_jaxpr_to_module is original
    text = [m.operation.get_asm(enable_debug_info=False) for name, m in modules if "lambda" in name]
    assert len(text) == 1 and "stablehlo.cosine" in text[0] and "tensor<7xf32>" in text[0]
