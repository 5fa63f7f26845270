"""Pessimisation factors on well-fused programs and on the stencil (the detector's threshold comes from here).

For each program: XLA's flops and bytes after optimisation over before (``compiled.cost_analysis()``
/ ``lowered.cost_analysis()``), the value-numbering ops factor of the optimised HLO, duplicated
instructions, compile seconds and the detector's verdict. Run:

    JAX_PLATFORMS=cpu python benchmarks/pessimisation_factors.py [--steps 3,5,8,10,20] [--n 512] [--fixes 8,20]

``--fixes`` also times the stencil's fixes: lax.optimization_barrier between steps, lax.fori_loop,
and a Python loop calling jax.jit(relax).
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp

from jitscope.analyze.pessimisation import detect_pessimisation
from jitscope.collect.lowering import cost_dict


def relax(s):
    n = jnp.roll(s, 1, 0) + jnp.roll(s, -1, 0) + jnp.roll(s, 1, 1) + jnp.roll(s, -1, 1)
    return 0.5 * s + 0.125 * jnp.tanh(n)


def stencil(steps):
    def simulate(s):
        for _ in range(steps):
            s = relax(s)
        return s
    return simulate


def stencil_barrier(steps):
    def simulate(s):
        for _ in range(steps):
            s = jax.lax.optimization_barrier(relax(s))
        return s
    return simulate


def stencil_fori(steps):
    return lambda s: jax.lax.fori_loop(0, steps, lambda i, s: relax(s), s)


def stencil_python(steps):
    jrelax = jax.jit(relax)

    def simulate(s):
        for _ in range(steps):
            s = jrelax(s)
        return s
    return simulate


def steady_ms(fn, x, budget_s=1.0):
    fn(x).block_until_ready()
    times = []
    t_end = time.perf_counter() + budget_s
    while time.perf_counter() < t_end or len(times) < 5:
        t0 = time.perf_counter()
        fn(x).block_until_ready()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2] * 1e3


def fixes(steps, n):
    """Compile seconds, flops factor and steady ms of the stencil and of each fix."""
    x = jnp.ones((n, n), jnp.float32)
    print(f"\nstencil {steps} steps f32[{n},{n}] on {jax.devices()[0].platform}: the fixes")
    print("| variant | compile s | flops factor | steady ms | gain |")
    print("|---|---|---|---|---|")
    base = None
    for name, fn in (("jit(simulate)", stencil(steps)), ("jit(simulate) + optimization_barrier", stencil_barrier(steps)),
                     ("jit(simulate) with lax.fori_loop", stencil_fori(steps)),
                     ("Python loop of jit(relax)", stencil_python(steps))):
        jitted = jax.jit(fn) if name != "Python loop of jit(relax)" else None
        jax.clear_caches()  # every compile below is a real one
        if jitted is not None:
            low = jitted.lower(x)
            t0 = time.perf_counter()
            comp = low.compile()
            compile_s = time.perf_counter() - t0
            p = detect_pessimisation(comp.as_text(), cost_dict(low), cost_dict(comp))
            factor = f"{p.flops_factor:.2f}" if p.flops_factor else "-"
            ms = steady_ms(comp, x)
        else:
            t0 = time.perf_counter()
            jax.jit(relax).lower(x).compile()
            compile_s, factor = time.perf_counter() - t0, "-"
            ms = steady_ms(fn, x)
        base = base or ms
        print(f"| {name} | {compile_s:.2f} | {factor} | {ms:.3f} | {base / ms:.2f}x |", flush=True)


def mlp(params, x):
    for w, b in params:
        x = jax.nn.relu(x @ w + b)
    return jnp.sum(x ** 2)


def scan_loop(s):
    return jax.lax.fori_loop(0, 20, lambda i, s: relax(s), s)


def softmax_layernorm(x):
    y = jax.nn.softmax(x, axis=-1)
    mu = y.mean(-1, keepdims=True)
    return (y - mu) / jnp.sqrt(((y - mu) ** 2).mean(-1, keepdims=True) + 1e-5)


def attention(q, k, v):
    w = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
    return w @ v


def conv_net(x, w1, w2):
    dn = ("NCHW", "OIHW", "NCHW")
    y = jax.nn.gelu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    return jax.lax.conv_general_dilated(y, w2, (1, 1), "SAME", dimension_numbers=dn).mean()


def quiet_programs(n):
    from jitscope.gallery import builtin_sum, float_simplify, fusion, jit_scope, random_walk, selu

    k = jax.random.PRNGKey(0)
    params = [(jax.random.normal(k, (256, 256)) * 0.05, jnp.zeros(256)) for _ in range(4)]
    x = jnp.ones((n, n), jnp.float32)
    integrand = builtin_sum.make_integrands(64)[0]
    fa, fb = float_simplify.make_inputs(10_000)
    return [
        ("mlp 4x256", jax.jit(mlp), (params, jnp.ones((64, 256)))),
        ("selu", jax.jit(selu.selu), (selu.make_input(100_000),)),
        ("scan/fori_loop 20 relax", jax.jit(scan_loop), (x,)),
        ("softmax+layernorm", jax.jit(softmax_layernorm), (jnp.ones((256, 512)),)),
        ("grad mlp 4x256", jax.jit(jax.grad(mlp)), (params, jnp.ones((64, 256)))),
        ("grad softmax+layernorm", jax.jit(jax.grad(lambda x: softmax_layernorm(x).sum())), (jnp.ones((256, 512)),)),
        ("attention 256x64", jax.jit(attention), (jnp.ones((256, 64)),) * 3),
        ("grad attention 256x64", jax.jit(jax.grad(lambda q, k, v: attention(q, k, v).sum(), argnums=(0, 1, 2))),
         (jnp.ones((256, 64)),) * 3),
        ("conv net + gelu", jax.jit(jax.grad(conv_net, argnums=(1, 2))),
         (jnp.ones((4, 8, 32, 32)), jnp.ones((16, 8, 3, 3)) * 0.1, jnp.ones((8, 16, 3, 3)) * 0.1)),
        ("gallery fusion", jax.jit(fusion.fusion), fusion.make_inputs(100_000)),
        ("gallery jit_scope.g", jax.jit(jit_scope.g), (jnp.ones(jit_scope.shape(True)),)),
        ("gallery float_simplify", jax.jit(float_simplify.f), (fa, fb)),
        ("gallery builtin_sum 64", jax.jit(integrand), (jnp.float32(0.5),)),
        ("gallery random_walk scan", jax.jit(random_walk.gaussian_random_walk_scan, static_argnums=(1, 2)),
         (k, 100, 100)),
        ("gallery sum_negatives_where", jax.jit(fusion.sum_negatives_where), (jnp.linspace(-1, 1, 10_000),)),
    ]


def measure(name, jitted, args):
    low = jitted.lower(*args)
    t0 = time.perf_counter()
    comp = low.compile()
    compile_s = time.perf_counter() - t0
    text = comp.as_text()
    t0 = time.perf_counter()
    p = detect_pessimisation(text, cost_dict(low), cost_dict(comp))
    detect_s = time.perf_counter() - t0
    f = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
    print(f"| {name} | {f(p.flops_factor)} | {f(p.bytes_factor)} | {f(p.ops_factor)} | {p.ops} | "
          f"{p.duplicated_ops} | {p.fusion_count} | {compile_s:.2f} | {detect_s * 1e3:.0f} | "
          f"{'fires (' + p.confidence + ')' if p.fires else 'quiet'} |", flush=True)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="2,3,4,5,8,10,20")
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--quiet-only", action="store_true")
    ap.add_argument("--stencil-only", action="store_true")
    ap.add_argument("--fixes", default="", help="step counts at which to time the fixes, e.g. 8,20")
    a = ap.parse_args()
    print("| program | flops factor | bytes factor | ops factor | ops | duplicated ops | fusions | compile s | "
          "detect ms | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    if not a.stencil_only:
        for name, jitted, args in quiet_programs(a.n):
            measure(name, jitted, args)
    if not a.quiet_only:
        x = jnp.ones((a.n, a.n), jnp.float32)
        for steps in [int(s) for s in a.steps.split(",") if s]:
            measure(f"stencil {steps} steps f32[{a.n},{a.n}]", jax.jit(stencil(steps)), (x,))
    for steps in [int(s) for s in a.fixes.split(",") if s]:
        fixes(steps, a.n)


if __name__ == "__main__":
    main()
