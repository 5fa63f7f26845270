"""Methods and properties that only host code reaches: display code, found from how it is reached, not from names.

Python itself calls ``__repr__``/``__str__``/``__format__`` (and IPython/rich their ``_repr_*_`` hooks) to show an
object: on the host, with whatever values the object holds. A pytree's property or method whose every use in
the module lies in such display code, in module-level statements (a script's eager lines), or in other methods
of this kind is reached only eagerly: ``float(self.mu)`` there reads a concrete array. A use inside any other
function (a computation, ``__call__``, a jitted function) may run traced, so one such use keeps the method
traced (docs/lint.md, "Host-only methods"; tests/test_lint_display_only.py runs both under jit).

Likewise a branch behind a module-level flag bound to ``False`` (``DEBUG = False`` ... ``if DEBUG:``) runs only
when someone turns the flag on for a debugging run, usually eager: a value claim inside it is ``info`` saying so
(``facts.judge``); behind a flag that is on (``VERBOSE = True``) it runs on every call and keeps its severity.
"""

from __future__ import annotations

import ast

from .astutil import iter_child_nodes

DISPLAY = frozenset({"__repr__", "__str__", "__format__", "__rich_repr__", "_repr_html_", "_repr_pretty_",
                     "_repr_latex_", "_repr_markdown_", "_repr_mimebundle_", "_repr_svg_", "_repr_png_"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def display_only(ctx, name: str) -> bool:  # ctx: lint.context.Context
    """Is attribute ``name`` used in this module, and only by display code or module-level statements?"""
    return name in ctx.memo(_display_only_names)


def _display_only_names(ctx) -> frozenset[str]:
    # For every attribute name: the innermost def of each use (None at module level).
    uses: dict[str, list[ast.AST | None]] = {}
    methods: dict[str, list[ast.AST]] = {}

    def walk(node: ast.AST, owner: ast.AST | None, in_class: bool) -> None:
        for child in iter_child_nodes(node):
            if isinstance(child, ast.Attribute) and isinstance(child.ctx, ast.Load):
                uses.setdefault(child.attr, []).append(owner)
            if isinstance(child, _DEFS):
                if in_class and not isinstance(child, ast.Lambda):
                    methods.setdefault(child.name, []).append(child)
                walk(child, child, False)
            elif isinstance(child, ast.ClassDef):
                walk(child, owner, True)
            else:
                walk(child, owner, in_class)

    walk(ctx.tree, None, False)
    host: set[ast.AST] = {m for name in DISPLAY for m in methods.get(name, ())}
    found: set[str] = set()
    changed = True
    while changed:  # a helper only display-only methods use is display-only too
        changed = False
        for name, defs in methods.items():
            if name in found or name in DISPLAY or name.startswith("__"):
                continue
            owners = uses.get(name)
            if owners and all(o is None or o in host for o in owners):
                found.add(name)
                host.update(defs)
                changed = True
    return frozenset(found)


def off_flag_branch(ctx, subject: ast.AST | None) -> str:
    """The module-level flag (bound to ``False`` at module level: ``DEBUG = False``) whose ``if`` guards the code
    being checked (``if DEBUG:``, ``if DEBUG and ...:``), or "": that branch runs only when the flag is turned on,
    by hand, for a debugging run."""
    flags = ctx.memo(_false_flags)
    if not flags:
        return ""
    chain = [*ctx.parents, subject] if subject is not None else list(ctx.parents)
    for i in range(len(chain) - 1, 0, -1):
        p = chain[i - 1]
        if isinstance(p, _DEFS) or isinstance(p, ast.ClassDef):
            return ""
        if isinstance(p, (ast.If, ast.IfExp)) and (chain[i] in p.body if isinstance(p.body, list) else chain[i] is p.body):
            test = p.test
            names = [test] if isinstance(test, ast.Name) else test.values if isinstance(test, ast.BoolOp) and \
                isinstance(test.op, ast.And) else []
            for n in names:
                if isinstance(n, ast.Name) and n.id in flags and ctx.is_module_global(n.id):
                    return n.id
    return ""


def _false_flags(ctx) -> frozenset[str]:
    """Module-level names whose first module-level binding is the constant ``False``."""
    out: dict[str, bool] = {}
    for s in ctx.tree.body:
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id not in out:
                    out[t.id] = isinstance(s.value, ast.Constant) and s.value.value is False
    return frozenset(n for n, off in out.items() if off)
