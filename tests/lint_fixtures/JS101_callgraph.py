# A helper is traced when traced code calls it with traced values (the call graph).
import functools

import jax
import jax.numpy as jnp


def normalize(x):
    if x.sum() > 0:  # JS101
        return x / x.sum()
    return x


def repeat(x, times, verbose):
    if verbose:
        print("repeating", times, "times")
    for _ in range(times):  # `times` is the caller's Python int
        x = x * 2
    return x


@jax.jit
def step(x):
    return repeat(normalize(x), 3, verbose=False)


@jax.jit
def step_ok(x):
    return repeat(jnp.where(x.sum() > 0, x / x.sum(), x), 2, False)


class Model:
    def __call__(self, x):
        return jax.jit(self.forward)(x)

    def forward(self, x):
        return self.gate(x)

    def gate(self, x):
        if x.mean() > 0.5:  # JS101
            return x
        return -x


def eager_only(x):
    if x.sum() > 0:  # never called from traced code
        return x
    return -x


def shift(x, offset):
    if offset > 0:  # bound by partial to a Python int
        return x + offset
    return x


def shift_checked(x, offset):
    if x.sum() > offset:  # JS101
        return x - offset
    return x


@jax.jit
def step_partial(x):
    return functools.partial(shift_checked, offset=1.0)(x)


@jax.jit
def step_partial_ok(x):
    return functools.partial(shift, offset=2)(x)


@jax.custom_jvp
def soft_abs(x):
    return jnp.sqrt(x * x + 1e-6)


@soft_abs.defjvp
def soft_abs_jvp(primals, tangents):
    x = primals[0]
    t = tangents[0]
    if x > 0:  # JS101
        return soft_abs(x), t
    return soft_abs(x), -t


@jax.jit
def slope(x):
    return jax.grad(soft_abs)(x)


class Policy:
    def act(self, obs):
        if obs.max() > 1.0:  # JS101
            return obs / obs.max()
        return obs

    def act_ok(self, obs, greedy):
        if greedy:  # the caller's Python bool
            return jnp.argmax(obs)
        return obs


@jax.jit
def rollout(obs):
    policy: Policy = Policy()
    return run_policy(policy, obs)


def run_policy(policy: Policy, obs):
    return policy.act(obs) + policy.act_ok(obs, False)
