import jax.numpy as jnp
from jax import lax


def negate_literal():
    return ~True  # JS106


def negate_not(a, b):
    return ~(not a)  # JS106


class Solver:
    stop_early: bool = False
    tol: float = 1e-3

    def cond(self, carry):
        _, err = carry
        return (err > self.tol) & ~self.stop_early  # JS106

    def run(self, x):
        return lax.while_loop(self.cond, lambda c: (c[0] * 0.5, c[1] * 0.5), (x, jnp.float32(1.0)))


def run_solver(x):
    return Solver().run(x)


def mask_ok(x, valid: bool):
    return (x > 0) | ~valid  # annotated bool, really a boolean array: `~` is logical not


def masks_ok(x):
    m = x > 0
    return ~m
