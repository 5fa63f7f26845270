"""Which functions of a module are Pallas kernel bodies (jaxmodel/kernels.py says what that means).

A def is a kernel body when its name (or a ``functools.partial`` of it, or a lambda) is handed to a Pallas
kernel call of the module (``pl.pallas_call(kernel, ...)``, ``kernel=`` keyword), or when such a call decorates
it (``@functools.partial(pl.pallas_call, out_shape=...)``, ``@pl.kernel(...)``). Found from how the function is
reached, never from its name.
"""

from __future__ import annotations

import ast

from ..jaxmodel.kernels import KERNEL_KEYWORDS, is_kernel_call

_PARTIAL = ("functools.partial", "partial")


def kernel_bodies(ctx) -> tuple[frozenset[str], frozenset[ast.AST]]:  # ctx: lint.context.Context
    """(names handed to a Pallas kernel call, the defs and lambdas that are kernel bodies by position)."""
    return ctx.memo(_collect)


def in_kernel(ctx) -> bool:
    """Is the code being checked inside a Pallas kernel body (at any depth of its frames)?"""
    names, nodes = kernel_bodies(ctx)
    if not names and not nodes:
        return False
    return any(f.node is not None and (f.node in nodes or (
        type(f.node) in (ast.FunctionDef, ast.AsyncFunctionDef) and f.name in names)) for f in ctx.frames)


def _function_arg(ctx, node: ast.AST) -> ast.AST | None:
    while isinstance(node, ast.Call) and ctx.resolve(node.func) in _PARTIAL and node.args:
        node = node.args[0]
    return node


def _collect(ctx) -> tuple[frozenset[str], frozenset[ast.AST]]:
    names: set[str] = set()
    nodes: set[ast.AST] = set()
    if "pallas" not in ctx.text:
        return frozenset(), frozenset()
    for n in ast.walk(ctx.tree):
        if isinstance(n, ast.Call) and is_kernel_call(ctx.resolve(n.func)):
            args = n.args[:1] + [k.value for k in n.keywords if k.arg in KERNEL_KEYWORDS]
            for a in args:
                fn = _function_arg(ctx, a)
                if isinstance(fn, ast.Name):
                    names.add(fn.id)
                elif isinstance(fn, ast.Lambda):
                    nodes.add(fn)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in n.decorator_list:
                head = dec.func if isinstance(dec, ast.Call) else dec
                q = ctx.resolve(head)
                if is_kernel_call(q) or (q in _PARTIAL and isinstance(dec, ast.Call) and dec.args
                                         and is_kernel_call(ctx.resolve(dec.args[0]))):
                    nodes.add(n)
    return frozenset(names), frozenset(nodes)
