"""What the linter knows about a module before visiting it: imports, globals, traced functions.

``ModuleInfo.collect(tree)`` is the one pre-pass over the tree. It resolves import
aliases (``import jax.numpy as np`` makes ``np`` mean ``jax.numpy``), finds the
functions that JAX will trace because they are wrapped (``h = jax.jit(f)``) or passed
as bodies (``lax.scan(body, ...)``), with their static parameters, and records how
module-level names are bound (arrays, mutable containers, names reassigned later).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from ..jaxmodel import known
from . import arraysize, narrow
from .astutil import ast_walk, children, iter_child_nodes, walk_in_order

# What each transformation does lives in jaxmodel (one table per wrapper family); these names are
# the lint side's short aliases for the derived sets.
JIT_LIKE = known.COMPILING  # calling it compiles, caching an executable per function object
TRACES = known.WRAPPERS  # returns a traced version of its first argument
BODY_ARGS = known.BODIES  # control-flow primitives: positions (and keywords) of the functions they trace
GRAD_LIKE = known.DIFFERENTIATING
VMAP_LIKE = known.AXES
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard",
                      "setdefault", "popitem", "appendleft", "extendleft"})


@dataclass
class StaticSpec:
    """Which parameters a wrapper treats as static (compile-time Python values)."""

    argnums: tuple[int, ...] = ()
    argnames: tuple[str, ...] = ()
    traced_argnums: tuple[int, ...] | None = None  # grad: only these positions are traced
    wrapper: str = ""  # qualified name of the wrapper, e.g. "jax.jit"
    filter: bool = False  # equinox.filter_*: non-array arguments are static automatically
    via: str = ""  # traced only through the call graph: who calls it ("`step` (train.py:40) calls it")
    assumed: bool = False  # traced by convention (an equinox/flax module's __call__), not by a seen call
    # The tracing model (lint/facts.py): is the body traced into a cached jaxpr ("must": on every way
    # the function is reached, "may": on some, "": on none), is every way it is reached known (True:
    # a decorator or a lambda handed to the transform; None: count the references to know; False:
    # unknown callers), where the wrapper was applied, and which traced parameters are abstract on
    # every known way (None: all of them).
    staged: str = "must"
    closed: bool | None = True
    site: str = ""
    must_names: frozenset[str] | None = None
    refs_seen: int = 0  # call graph: how many references to the function the recorded calls account for
    pytrees: tuple[str, ...] = ()  # parameters that receive Python containers of traced values
    pytree_argnums: tuple[int, ...] = ()  # the same, by position (a lax.scan carry given a dict)
    passed_positional: int | None = None  # how many positional arguments every call passes (a lax body's operands)
    passed_keywords: frozenset[str] = frozenset()  # ... and the keywords some call passes (the rest keep defaults)
    from_calls: bool = False  # those counts come from the calls of one wrapper's result (it must be the only way)
    handle_not_none: frozenset[str] = frozenset()  # ... and the parameters they all pass not None
    unmapped_from: int | None = None  # vmap: every position from here on is unmapped (`in_axes=(0, *nones)`)
    not_none: frozenset[str] = frozenset()  # call graph: parameters every recorded call passes a non-None value
    fresh: frozenset[str] = frozenset()  # call graph: parameters every recorded call passes a container made in its trace
    proven: frozenset[tuple[str, str]] = frozenset()  # call graph: (parameter, predicate) every recorded call proved
    observed: str = ""  # evidence from a run: how the run saw it traced ("observed: traced by `step` ... in run.json")
    observed_abstract: frozenset[str] = frozenset()  # parameters the run saw abstract
    observed_leaves: tuple[tuple[str, frozenset[str]], ...] = ()  # parameters -> leaves the run saw abstract
    accessor: bool = False  # a pytree method returning a Python scalar: it concretizes its fields on the host
    # call graph: every recorded call passes Python values only (a helper staged by its caller: its `jnp` results
    # are tracers, but its side effects are the caller's trace machinery, not a leak of anything traced)
    python_only: bool = False
    # vmap/pmap: the positions the wrapper hashes (pmap's `static_broadcasted_argnums`); the others among
    # `argnums` are unmapped (`in_axes=None`), passed through or broadcast, never hashed. None: all of them.
    hashed_argnums: tuple[int, ...] | None = None
    # The wrapper was given the bound method (`jax.vmap(self._one, in_axes=(0, None))`): its argument numbers
    # and `in_axes` count from the parameter after `self`.
    bound_self: bool = False
    by_name: bool = False  # reached through `jax.jit(obj.name)`: the def is matched by its name only
    # `jax.vmap(partial(f, **params))`: the partial binds keywords from a mapping, so any keyword-only parameter
    # may be among them (a Python value fixed before tracing, as a keyword it names); the call passes none
    kwonly_bound: bool = False
    # `jax.jit(self._env.step)`: the class whose own method of that name is not the one traced (`self._env` is
    # another object than `self`)
    not_class: object = None

    def static_params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
        a = fn.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        if self.bound_self and positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        static = set(self.argnames)
        for i in self.argnums:
            if -len(positional) <= i < len(positional):
                static.add(positional[i])
        if self.unmapped_from is not None:
            static.update(positional[self.unmapped_from:])
        if self.kwonly_bound:
            static |= {p.arg for p in a.kwonlyargs}
        if self.traced_argnums is not None:
            keep = {positional[i] for i in self.traced_argnums if -len(positional) <= i < len(positional)}
            static |= set(positional) - keep
            if not self.traced_argnums:
                static |= {p.arg for p in a.kwonlyargs}
        return static


@dataclass(eq=False, repr=False)  # per-file state: compared by identity (docs/architecture.md)
class ModuleInfo:
    """Facts about one module gathered in a single walk before the main visit."""

    aliases: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    module_defs: set[str] = field(default_factory=set)  # functions and classes at module level
    module_assign_count: dict[str, int] = field(default_factory=dict)
    module_arrays: dict[str, int] = field(default_factory=dict)  # name -> line of an array binding
    module_mutables: dict[str, int] = field(default_factory=dict)  # name -> line of a list/dict/set binding
    reassigned_in_functions: set[str] = field(default_factory=set)  # `global g; g = ...` somewhere
    # (scope node, function name) -> how it is traced; a call marks the name in every enclosing scope,
    # so a def is traced only by calls that can see it (scope 0 is the module). Keys hold the nodes,
    # never their id(): an id can be reused once its object dies (issue #25 item 6).
    traced_names: dict[tuple[object, str], StaticSpec] = field(default_factory=dict)
    # a name defined by several defs in one scope (`if a: def f ... else: def f ...`): (scope, name) -> the
    # defs, and each def's spec from the calls that one reaches (the nearest earlier def in a block around the call)
    redefined: dict[tuple[object, str], list[ast.AST]] = field(default_factory=dict)
    traced_defs: dict[ast.AST, StaticSpec] = field(default_factory=dict)
    # each def's enclosing scope (a def or class node, or 0), beside the tree: a def pointing up at its
    # enclosing def would make the tree a reference cycle (docs/architecture.md)
    def_scopes: dict[ast.AST, object] = field(default_factory=dict)
    local_bindings: dict[ast.AST, tuple[set[str], set[str]]] = field(default_factory=dict)  # _local_bindings
    _tree: ast.AST | None = None
    module_tree: ast.AST | None = None  # kept only when a module-level private name holds a call's result
    mutated_names: set[str] = field(default_factory=set)  # receivers of .append/.update/..., `x[k] = v` targets
    uses_pallas: bool = False
    jitted_callables: dict[str, tuple[str, StaticSpec]] = field(default_factory=dict)  # callable -> (def, spec)
    loggers: set[str] = field(default_factory=set)
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    module_literals: dict[str, ast.expr] = field(default_factory=dict)  # NAME = (0, 1) at module level
    module_aliases: dict[str, str] = field(default_factory=dict)  # imports at module level only
    callees: dict[ast.AST, str | None] = field(default_factory=dict)  # call.func -> resolve(call.func)
    module_bind_lines: dict[str, list[int]] = field(default_factory=dict)  # module-level bindings, in order
    module_bind_values: dict[str, list[str]] = field(default_factory=dict)  # the value of each, normalised
    module_loads: dict[str, list[int]] = field(default_factory=dict)  # lines reading a name in module-level code
    module_def_lines: dict[str, list[int]] = field(default_factory=dict)  # lines of module-level `def name`
    module_calls: list[tuple[int, str]] = field(default_factory=list)  # (line, f) of module-level `f(...)` calls
    # names called inside some function, or in a module-level loop: not run just once per process
    called_repeatedly: set[str] = field(default_factory=set)
    array_sizes: dict[str, int | None] = field(default_factory=dict)  # module-level array -> elements, if literal
    array_itemsizes: dict[str, int] = field(default_factory=dict)  # module-level array -> bytes per element
    size_literals: dict[str, ast.expr] = field(default_factory=dict)  # module-level literals sizes are made of
    sentinels: set[str] = field(default_factory=set)  # module-level names bound to a fresh `object()`
    # `X = partial(F, a, k=v)` in a scope: (scope, X) -> (F, number of bound positionals, bound keywords,
    # the keywords bound to something other than None)
    partial_binds: dict[tuple[object, str], tuple[str, int, tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict)
    wrapped_refs: dict[str, int] = field(default_factory=dict)  # name -> references that hand it to a transform
    # name -> (fewest positionals, keywords passed) over every call of every transform of it, all seen
    # (`jax.vmap(f)(xs)` in two functions); None when one reference's calls are not all seen
    applied_all: dict[str, tuple[int, frozenset[str]] | None] = field(default_factory=dict)
    inside_traced: set[ast.AST] = field(default_factory=set)  # transform calls applied under a traced transform
    applied: dict[ast.AST, list[ast.Call]] = field(default_factory=dict)  # a wrapper call -> the calls applying it
    applied_module: set[ast.AST] = field(default_factory=set)  # ... bound to a module-level name: not every call
    calls: list[tuple[ast.Call, tuple[object, ...]]] = field(default_factory=list)  # every call, with its scopes
    tree_body: list[ast.stmt] = field(default_factory=list)  # the module's statements

    def literal(self, node: ast.expr) -> ast.expr:
        """``node``, or the literal a module-level name is bound to (``static_argnums=STATIC``)."""
        if isinstance(node, ast.Name) and node.id in self.module_literals:
            return self.module_literals[node.id]
        return node

    def resolve(self, node: ast.AST) -> str | None:
        """Qualified dotted name of a Name/Attribute chain, imports resolved; None if not a name."""
        t = type(node)
        if t is ast.Name:  # the common case, without building a list
            base = self.aliases.get(node.id)  # type: ignore[attr-defined]
            if base is None:
                return node.id if node.id not in self.module_defs else "." + node.id  # type: ignore[attr-defined]
            return base
        if t is not ast.Attribute:
            return None
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id)
        if base is None:
            base = node.id if node.id not in self.module_defs else "." + node.id
        parts.append(base)
        return ".".join(reversed(parts))

    def jnp_alias(self) -> str | None:
        """A name bound to ``jax.numpy`` by a module-level import (for fixes), if any.

        Imports inside functions do not count: the name does not exist at other fix sites.
        Callers must still check that a local binding does not shadow it (``Context.jnp_alias``).
        """
        for name, q in self.module_aliases.items():
            if q == "jax.numpy" and self.module_assign_count.get(name, 0) == 0 and name not in self.module_defs:
                return name
        return None

    @classmethod
    def collect(cls, tree: ast.Module) -> ModuleInfo:
        info = cls()
        calls: list[tuple[ast.Call, tuple[object, ...]]] = []
        assigns: list[ast.Assign] = []
        assign_scopes: list[object] = []  # the scope of each (never stored on the node: a child pointing at
        # its enclosing def makes the tree a reference cycle, freed only by the cyclic collector)
        defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        # One walk; each function or class body is walked as its own unit with its scope chain,
        # so the inner loop handles plain nodes without building per-node tuples.
        units: list[tuple[list[ast.AST], tuple[object, ...]]] = [(list(tree.body), (0,))]
        mutated = info.mutated_names
        while units:
            stack, scopes = units.pop()
            nested = len(scopes) > 1
            while stack:
                node = stack.pop()
                t = type(node)
                if t is ast.Name or t is ast.Constant:  # the most common nodes: leaves, nothing to note
                    continue
                if t is ast.Call:
                    calls.append((node, scopes))  # type: ignore[arg-type]
                    func = node.func  # type: ignore[attr-defined]
                    if nested and type(func) is ast.Attribute and func.attr in MUTATORS \
                            and type(func.value) is ast.Name:  # filling a table at import time is fine
                        mutated.add(func.value.id)
                elif t is ast.Assign:
                    assigns.append(node)  # type: ignore[arg-type]
                    assign_scopes.append(scopes[-1])
                    if nested:
                        for tgt in node.targets:  # type: ignore[attr-defined]
                            if type(tgt) is ast.Subscript and type(tgt.value) is ast.Name:
                                mutated.add(tgt.value.id)
                elif t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.Lambda or t is ast.ClassDef:
                    if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                        defs.append(node)  # type: ignore[arg-type]
                        info.def_scopes[node] = scopes[-1]
                    ch = node._jc = children(node)  # type: ignore[attr-defined]  # reused by the main walk
                    units.append((list(ch), scopes + (node,)))
                    continue
                elif t is ast.Import or t is ast.ImportFrom:
                    info._import(node)  # type: ignore[arg-type]
                    continue
                elif t is ast.Global:
                    info.reassigned_in_functions.update(node.names)  # type: ignore[attr-defined]
                    continue
                ch = node._jc = children(node)  # type: ignore[attr-defined]  # reused by the main walk
                stack.extend(ch)
        for stmt in tree.body:  # module-level imports win over function-level ones
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                info._import(stmt)
                info._import(stmt, info.module_aliases)
        for stmt in tree.body:
            info._module_stmt(stmt)
        seen_defs: dict[tuple[object, str], list[ast.AST]] = {}
        for d in defs:
            info._def(d)
            seen_defs.setdefault((info.def_scopes[d], d.name), []).append(d)
        info.redefined = {k: sorted(v, key=lambda d: d.lineno) for k, v in seen_defs.items() if len(v) > 1}
        for (scope, name) in info.redefined:
            if scope == 0 and info.jitted_callables.get(name, ("",))[0] == name:
                # several module-level defs of one name: Python binds the last, and a dispatch decorator
                # (plum's `@dispatch`, `singledispatch`, multipledispatch) combines them into overloads chosen
                # by argument types at each call; which def a call reaches is not known, nor whether it is jitted
                del info.jitted_callables[name]
        info._tree = tree  # walked for the redefined defs' blocks only when a wrapper names one (rare)
        for a, a_scope in zip(assigns, assign_scopes, strict=True):
            v = a.value
            if a_scope == 0 and len(a.targets) == 1 and type(a.targets[0]) is ast.Name \
                    and a.targets[0].id.startswith("_") and type(v) is ast.Call:
                v._jhandle = a.targets[0].id  # type: ignore[attr-defined]  # `_h = jax.jit(f)`: a private handle
                info.module_tree = tree
            if len(a.targets) == 1 and type(a.targets[0]) is ast.Name and type(v) is ast.Call and v.args \
                    and type(v.args[0]) is ast.Name and info.resolve(v.func) in ("functools.partial", "partial") \
                    and not any(type(x) is ast.Starred for x in v.args) and all(k.arg for k in v.keywords):
                info.partial_binds[(a_scope, a.targets[0].id)] = (v.args[0].id, len(v.args) - 1,  # type: ignore
                                                       tuple(k.arg for k in v.keywords), _given(v.keywords))
        info.calls, info.tree_body = calls, tree.body
        later = []
        for c, _ in calls:
            if type(c.func) is ast.Call:  # `eqx.filter_vmap(g)(xs, 3)`: the wrapper applied at once
                info.applied[c.func] = [c]
        info._applied_by_name(tree, assigns, assign_scopes)
        for c, scopes in calls:
            if info._call(c, scopes):
                later.append((c, scopes))
            if len(scopes) > 1 and type(c.func) is ast.Name:
                info.called_repeatedly.add(c.func.id)
        for c, scopes in later:
            info._call(c, scopes, concrete=True)
        info.uses_pallas = any(q.startswith(("jax.experimental.pallas", "jax._src.pallas", "jax.experimental.mosaic"))
                               for q in info.aliases.values())
        for a in assigns:
            if len(a.targets) == 1 and type(a.value) is ast.Call:
                info._assign_call(a.targets[0], a.value)
        return info

    def _import(self, node: ast.Import | ast.ImportFrom, into: dict[str, str] | None = None) -> None:
        aliases = self.aliases if into is None else into
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    head = a.name.split(".")[0]
                    aliases[head] = head
        elif node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def _module_stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.module_defs.add(stmt.name)
            self.module_def_lines.setdefault(stmt.name, []).append(stmt.lineno)
            return
        targets: list[ast.expr] = []
        value = None
        sentinel = False
        if not isinstance(stmt, (ast.If, ast.Try, ast.With, ast.Import, ast.ImportFrom)) and not isinstance(
                getattr(stmt, "value", None), _LITERALS):
            called = []
            loads = self.module_loads
            for n in walk_in_order(stmt):  # one walk: the names read and the functions called at import
                t = type(n)
                if t is ast.Name:
                    if type(n.ctx) is ast.Load:  # type: ignore[attr-defined]
                        loads.setdefault(n.id, []).append(stmt.lineno)  # type: ignore[attr-defined]
                elif t is ast.Call and type(n.func) is ast.Name:  # type: ignore[attr-defined]
                    called.append(n.func.id)  # type: ignore[attr-defined]
                    sentinel = sentinel or (n.func.id == "object" and not n.args)  # type: ignore[attr-defined]
            self.module_calls.extend((stmt.lineno, fn) for fn in called)
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                self.called_repeatedly.update(called)
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets, value = [stmt.target], stmt.value
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for sub in iter_child_nodes(stmt):
                if isinstance(sub, ast.stmt):
                    self._module_stmt(sub)
            return
        for t in targets:
            if isinstance(t, ast.Name):
                self.module_assign_count[t.id] = self.module_assign_count.get(t.id, 0) + (
                    2 if isinstance(stmt, ast.AugAssign) else 1)
                self.module_bind_lines.setdefault(t.id, []).append(stmt.lineno)
                self.module_bind_values.setdefault(t.id, []).append(
                    "+=" if isinstance(stmt, ast.AugAssign) else _value_key(value))
                if value is None:
                    continue
                if sentinel:
                    self.sentinels.add(t.id)
                if isinstance(value, (ast.Constant, ast.Tuple)) and not isinstance(stmt, ast.AugAssign):
                    self.module_literals[t.id] = value
                if isinstance(value, (ast.Constant, ast.Tuple, ast.List, ast.BinOp)) \
                        and not isinstance(stmt, ast.AugAssign):
                    self.size_literals[t.id] = value  # `N = 64`, `MOVES = [[...]]`: what array sizes are made of
                else:
                    self.size_literals.pop(t.id, None)
                if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
                    self.module_mutables[t.id] = stmt.lineno
                elif isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Call) \
                        and _is_array_factory(self.resolve(value.operand.func)):  # `-np.ones((10, 81, 8))`
                    self._array_binding(t.id, value.operand)
                elif isinstance(value, ast.Call) and _is_array_factory(self.resolve(value.func)):
                    size = self._array_binding(t.id, value)
                    if not _scalar_array(value) and (size is None or size >= arraysize.SMALL_BYTES):
                        self.module_arrays[t.id] = stmt.lineno
                    else:  # a small table rebound from a big one is small now
                        self.module_arrays.pop(t.id, None)

    def _array_binding(self, name: str, call: ast.Call) -> int | None:
        """Record module-level array ``name = call``'s elements and item size; its bytes, None if unknown."""
        q = self.resolve(call.func) or ""
        n = arraysize.elements(call, q, self.size_literals, self.array_sizes)
        item = arraysize.itemsize(call, q, self.array_itemsizes)
        self.array_sizes[name] = n
        self.array_itemsizes[name] = item
        return None if n is None else n * item

    def runs_once(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Is module-level function ``fn`` a one-shot driver: ``main``, a CLI command, or called only
        from module-level code outside loops (``if __name__ == "__main__": train()``)?"""
        name = fn.name
        if name in self.called_repeatedly:
            return False
        if name in DRIVER_NAMES or any(
                (self.resolve(d.func if isinstance(d, ast.Call) else d) or "").rpartition(".")[2] in ("command", "main")
                for d in fn.decorator_list):
            return True
        return any(f == name for _, f in self.module_calls)

    def rebound_after_call(self, name: str, reader: ast.AST | None = None, script: bool = False,
                           read_by_others: object = None) -> bool:
        """Is module-level ``name`` bound again after a module-level call of a function of this module?

        ``N = 3`` then ``N = N * 2`` (or one binding per branch of an ``if``) is settled before
        anything runs: a constant. A rebinding after ``f(...)`` ran at import (a script) is stale
        for the graph ``f`` traced. With ``reader`` (the module-level def that reads ``name``), a
        script's rebinding counts only when it can be stale for that function: it comes after
        the def and after a call that may have traced it, it changes the value (``EMPTY = -1``
        then ``EMPTY = jnp.int32(-1)`` does not), and the function can still run after it (not
        when a later cell redefines ``step_fn`` without running the old one in between).

        ``script`` (a file outside any package: its module-level code is the whole program): the old
        function runs after a rebinding only if that code reads it after the rebinding; a rebinding
        that no other code reads (``read_by_others(line)`` False) can only be meant for it, though.
        """
        lines = self.module_bind_lines.get(name, ())
        if len(lines) < 2:
            return False
        values = self.module_bind_values.get(name, ())
        if len(set(values)) == 1 and "?" not in values[0]:
            return False  # every binding gives the same constant
        first = lines[0]
        start = getattr(reader, "lineno", 0) if isinstance(reader, (ast.FunctionDef, ast.AsyncFunctionDef)) else 0
        rname = getattr(reader, "name", None) if start else None
        for r in lines[1:]:
            if r <= start:
                continue  # bound before the function exists: its first trace sees this value
            if not any(max(first, start) < line < r and (fn in self.module_defs or fn in self.jitted_callables)
                       for line, fn in self.module_calls):
                continue
            if rname is None or self._used_after(rname, start, r, script):
                return True
            if script and read_by_others is not None and not read_by_others(r):  # type: ignore[operator]
                return True  # rebound for nobody else: the stale reader is who it was meant for
        return False

    def _used_after(self, fn: str, defined: int, line: int, script: bool = False) -> bool:
        """Is module-level function ``fn`` (defined at ``defined``) still the one module code uses after ``line``?

        In a script (a file no other module imports) module-level code is the whole program: ``fn``
        runs after ``line`` only if that code reads it after ``line``."""
        redefined = [d for d in self.module_def_lines.get(fn, ()) if d > defined]
        if not redefined:
            if script:
                return any(n > line for n in self.module_loads.get(fn, ()))
            return True  # it may be called again at any time (the next cell, the importer)
        until = min(redefined)
        return until > line and any(line < n < until for n in self.module_loads.get(fn, ()))

    def _python_args(self, node: ast.Call, q: str) -> tuple[int, ...]:
        """Positions that receive a Python literal in every call applying ``eqx.filter_vmap(g)`` (at once, or
        through the one name it is bound to): a wrapper that keeps non-array leaves static (``static_by_type``)
        passes them through as Python values."""
        t = known.lookup(q)
        uses = self.applied.get(node)
        if t is None or not t.static_by_type or not uses or any(type(a) is ast.Starred for c in uses for a in c.args):
            return ()
        return tuple(i for i in range(min(len(c.args) for c in uses)) if all(_python_literal(c.args[i]) for c in uses))

    def _applied_by_name(self, tree: ast.AST, assigns: list[ast.Assign], assign_scopes: list[object]) -> None:
        """``fn = eqx.filter_vmap(g)`` then ``fn(xs, 4)``: the wrapper's applications, when the function (or module)
        binds ``fn`` once and only ever calls it (a name passed or returned may be applied to anything elsewhere)."""
        bound: dict[tuple[object, str], ast.Call] = {}
        seen: set[tuple[object, str]] = set()
        for a, scope in zip(assigns, assign_scopes, strict=True):
            if len(a.targets) == 1 and type(a.targets[0]) is ast.Name and type(a.value) is ast.Call:
                key = (scope, a.targets[0].id)
                q = self.resolve(a.value.func) or ""
                t = known.lookup(q)
                if key in seen or t is None or not (t.static_by_type or q in TRACES):
                    bound.pop(key, None)
                else:
                    bound[key] = a.value
                seen.add(key)
        targets = {a.targets[0] for a in assigns if len(a.targets) == 1}
        for (scope, name) in list(bound):
            node = scope if isinstance(scope, ast.AST) else tree
            uses = [c for c in ast_walk(node) if type(c) is ast.Call and type(c.func) is ast.Name and c.func.id == name]
            called = {c.func for c in uses}
            if any(type(n) is ast.Name and n.id == name and n not in called and n not in targets for n in ast_walk(node)):
                continue  # used otherwise than called, or bound again (a loop, `with`, `+=`)
            self.applied.setdefault(bound[(scope, name)], []).extend(uses)
            if scope == 0:  # a module-level handle may be imported and called elsewhere with other arguments
                self.applied_module.add(bound[(scope, name)])

    def _mark(self, name: str, scopes: tuple[object, ...], spec: StaticSpec, site: ast.AST | None = None) -> None:
        plain = not any(a in spec.argnames for a in ("<attribute>", "<held>", "<self>"))
        if "<attribute>" in spec.argnames:  # `jax.jit(obj.step)`: every `step` may be it, known by name only
            spec = replace(spec, argnames=tuple(a for a in spec.argnames if a != "<attribute>"), closed=False,
                           by_name=True)
        if "<held>" in spec.argnames:
            # `jax.jit(self._env.step)` inside class `Wrapper`: the method of an object `self` holds, not
            # `Wrapper.step` (only `self.step` names the enclosing class's method): any other `step` may be it.
            owner = next((s for s in reversed(scopes) if type(s) is ast.ClassDef), None)
            spec = replace(spec, argnames=tuple(a for a in spec.argnames if a != "<held>"), not_class=owner)
        if "<**>" in spec.argnames:
            spec = replace(spec, argnames=tuple(a for a in spec.argnames if a != "<**>"), kwonly_bound=True)
        if "<self>" in spec.argnames:
            spec = replace(spec, argnames=tuple(a for a in spec.argnames if a != "<self>"), bound_self=True)
        bound = next((self.partial_binds[(s, name)] for s in reversed(scopes) if (s, name) in self.partial_binds), None)
        if bound is not None:  # `foo = partial(foo, flag=True); jax.pmap(foo)`: the bound arguments are static
            name, spec = bound[0], _with_bound(spec, bound[1], bound[2], bound[3])
        self.wrapped_refs[name] = self.wrapped_refs.get(name, 0) + 1 + (bound is not None)
        seen = (spec.passed_positional, spec.passed_keywords) if spec.from_calls and bound is None \
            and spec.passed_positional is not None else None
        if name in self.applied_all:
            prev = self.applied_all[name]
            seen = None if prev is None or seen is None else (min(prev[0], seen[0]), prev[1] | seen[1])
        self.applied_all[name] = seen
        if plain:
            scopes = _visible_from(self, name, scopes)
        for scope in scopes:
            defs = self.redefined.get((scope, name))
            if defs is not None and site is not None:
                if self._tree is not None:
                    _note_blocks(self._tree, {d for v in self.redefined.values() for d in v})
                    self._tree = None
                # a reference in a nested function reads the name when it runs (late binding): any def may be it
                reaching = _reaching_def(defs, site) if scope is scopes[-1] else None
                if reaching is not None:
                    self.traced_defs.setdefault(reaching, spec)
                    continue
                for d in defs:  # which def the call sees is unknown: each may be the one
                    self.traced_defs.setdefault(d, spec)
                continue
            self.traced_names.setdefault((scope, name), spec)

    def _container(self, arg: ast.AST, scopes: tuple[object, ...]) -> bool:
        """Is ``arg`` a dict/tuple/list: a literal, ``dict(...)``, or a name bound to one in the calling function?"""
        if isinstance(arg, (ast.Dict, ast.Tuple, ast.List, ast.DictComp)):
            return True
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in ("dict", "tuple", "list"):
            return True
        if isinstance(arg, ast.Name) and len(scopes) > 1 and isinstance(scopes[-1], (ast.FunctionDef, ast.AsyncFunctionDef)):
            values = [s.value for s in ast_walk(scopes[-1]) if isinstance(s, ast.Assign) and len(s.targets) == 1
                      and isinstance(s.targets[0], ast.Name) and s.targets[0].id == arg.id]
            return bool(values) and all(self._container(v, ()) for v in values)
        return False

    def _nested_transforms(self, arg: ast.AST) -> None:
        """Record the transform calls in ``arg`` (``jax.vmap(f)`` in ``jax.jit(jax.vmap(f))``, ``partial``-wrapped
        too): they are applied under the outer transform, so what they trace is traced with it."""
        while isinstance(arg, ast.Call):
            q = self.resolve(arg.func)
            if q in TRACES or q in BODY_ARGS:
                self.inside_traced.add(arg)
                arg = arg.args[0] if arg.args else None  # type: ignore[assignment]
            elif q in ("functools.partial", "partial") and arg.args:
                arg = arg.args[0]
            else:
                return

    def _site_traced(self, scopes: tuple[object, ...]) -> bool:
        """Is a call in ``scopes`` inside a function that JAX traces with abstract values (a def decorated
        with jit/vmap/..., or one wrapped by name)? Then a ``grad`` or ``shard_map`` applied there sees
        abstract values too (jaxmodel.transforms.compose)."""
        for i in range(len(scopes) - 1, 0, -1):
            node = scopes[i]
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for dec in node.decorator_list:
                spec = decorator_spec(self, dec)
                if spec is not None and traces_abstractly(spec):
                    return True
            if self.traced_spec(scopes[i - 1], node.name, node) is not None:
                return True
        return False

    def traced_spec(self, scope: object, name: str, node: ast.AST | None = None) -> StaticSpec | None:
        """How the function ``name`` defined in ``scope`` (the def ``node``, when the scope defines the name
        more than once) is traced by a wrapping call, if it is."""
        if node is not None and (scope, name) in self.redefined:
            return self.traced_defs.get(node)
        spec = self.traced_names.get((scope, name))
        if spec is not None and spec.not_class is not None and node is not None \
                and self.def_scopes.get(node) is spec.not_class:
            return None  # `jax.jit(self._env.step)` does not trace this class's own `step`
        return spec

    def _call(self, node: ast.Call, scopes: tuple[object, ...] = (0,), concrete: bool = False) -> bool:
        """Mark the functions a transform call traces. Transforms that give concrete values under an eager
        caller (grad, vjp, shard_map) are handled in a second round (``concrete=True``), once the
        functions traced by the others are known: only a call inside one of those traces abstractly.
        Returns True when the call was left for that round."""
        if not concrete:
            q = self.callees[node.func] = self.resolve(node.func)  # the walk asks again: lint.Context.resolve
        else:
            q = self.callees[node.func]
        if q is None:
            return False
        fns: list[tuple[ast.AST, StaticSpec]] = []
        if q in TRACES and node.args:
            # `jax.jit(shard_map(f, in_specs=(P(), None)))`: what a None in-spec passes through is jit's tracer
            spec = spec_from_call(self, node, q, scopes[-1], passthrough=node not in self.inside_traced)
            python = self._python_args(node, q)
            if python:
                spec = replace(spec, argnums=tuple(sorted(set(spec.argnums) | set(python))))
            uses = self.applied.get(node)
            if uses and node not in self.applied_module and not any(
                    type(a) is ast.Starred for c in uses for a in c.args) and all(k.arg for c in uses for k in c.keywords):
                # `jax.jit(g)(x)`, or `h = jax.jit(g)` in a function and only ever called: every traced call is
                # seen, so a defaulted parameter none of them passes keeps its Python default
                npos = min(len(c.args) for c in uses)
                if spec.passed_positional is None or npos < spec.passed_positional:
                    spec = replace(spec, passed_positional=npos)
                spec = replace(spec, passed_keywords=frozenset(k.arg for c in uses for k in c.keywords if k.arg),
                               from_calls=True)
            handle = node.__dict__.get("_jhandle")
            target = self.defs.get(node.args[0].id) if type(node.args[0]) is ast.Name else None
            if handle and target is not None and self.module_tree is not None:
                # every call through the private handle passes these not None (narrow.handle_not_none)
                a = target.args
                given = narrow.handle_not_none(self.module_tree, handle, [p.arg for p in a.posonlyargs + a.args])
                spec = replace(spec, handle_not_none=given)
            fns = [(node.args[0], spec)]
        elif q in BODY_ARGS:
            positions, keywords = BODY_ARGS[q]
            args = [node.args[i] for i in positions if i < len(node.args)]
            args += [k.value for k in node.keywords if k.arg in keywords]
            t = known.lookup(q)
            pytrees = tuple(param for pos, param in (t.body_operands if t else ())
                            if pos < len(node.args) and self._container(node.args[pos], scopes))
            arity = t.body_arity if t is not None else None
            if arity is not None and arity < 0:
                arity = len(node.args) + arity if not any(type(a) is ast.Starred for a in node.args) else None
            # the body is traced during this call: its free variables hold their values here (narrow.py)
            site = scopes[-1]
            nn = narrow.not_none_at(site, node) if type(site) in (ast.FunctionDef, ast.AsyncFunctionDef) else frozenset()
            fns = [(a, StaticSpec(wrapper=q, pytree_argnums=pytrees, passed_positional=arity, not_none=nn))
                   for a in args]
        elif q in ("functools.partial", "partial") and node.args:
            inner = self.resolve(node.args[0])
            if inner in TRACES and len(node.args) > 1:
                q = inner
                fns = [(node.args[1], spec_from_call(self, node, inner, scopes[-1]))]
        if not fns:
            return False
        t = known.lookup(q)
        inside = node in self.inside_traced  # `jax.jit(jax.vmap(f))`: applied under the outer transform
        if t is not None and (t.makes == "abstract" or t.python_runs != "each_call"):
            # what this transform traces, a transform applied to its argument runs under
            for fn_node, _ in fns:
                self._nested_transforms(fn_node)
        if t is not None and t.makes != "abstract":
            if not concrete:
                return True
            if not inside and not self._site_traced(scopes):
                return False  # an eager grad/shard_map: its function sees concrete values
        site_staged = inside or self._site_traced(scopes) if t is not None and t.python_runs == "each_call" else True
        if t is not None and t.trace_only:
            site_staged = False  # make_jaxpr/eval_shape: traced for its shapes or graph, never compiled or run
        line = getattr(node, "lineno", 0)
        for fn_node, spec in fns:
            spec.staged = "must" if site_staged else ""
            spec.closed = None
            spec.site = f"line {line}"
            for fn, bound, kw, given in _function_names(fn_node):
                self._mark(fn, scopes, _with_bound(spec, bound, kw, given), node)
        return False

    def module_jit(self, name: str) -> tuple[str, StaticSpec] | None:
        """The jitted def and spec a bare ``name`` calls, or None. Only module-level defs and assignments are
        recorded (``_def``): a bare name never reaches a method, as a class body is not a scope of its methods
        (``hermval(x)`` inside a class with a jitted method ``hermval`` calls the module's ``hermval``)."""
        return self.jitted_callables.get(name)

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.defs.setdefault(node.name, node)
        if self.def_scopes.get(node) != 0:
            return  # a method or a nested def: a bare name elsewhere never calls it (the class body is no scope
            # of its methods; a nested def is the local frame's), so it is no module-level jitted callable
        for dec in node.decorator_list:
            spec = decorator_spec(self, dec)
            if spec is not None and spec.wrapper in JIT_LIKE:
                self.jitted_callables[node.name] = (node.name, spec)

    def _assign_call(self, target: ast.expr, call: ast.Call) -> None:
        q = self.resolve(call.func)
        if q == "logging.getLogger" and isinstance(target, (ast.Name, ast.Attribute)):
            name = target.id if isinstance(target, ast.Name) else target.attr
            self.loggers.add(name)
        elif q in JIT_LIKE and call.args and isinstance(target, ast.Name) and isinstance(call.args[0], ast.Name):
            self.jitted_callables[target.id] = (call.args[0].id, spec_from_call(self, call, q))


_FUNCTION_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_OWN_SCOPE_ENDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
                   ast.DictComp, ast.GeneratorExp)


def _visible_from(info: ModuleInfo, name: str, scopes: tuple[object, ...]) -> tuple[object, ...]:
    """The scopes whose binding of ``name`` a reference in the innermost one can see (Python's scoping): a
    function that binds ``name`` to a value (a parameter, an assignment, a loop or ``with`` target, an import;
    not a ``def`` of that name) hides the enclosing scopes' ``name``. ``model = make(width);
    jax.jit(model)`` inside ``def model(width)`` jits the local closure, not the enclosing ``def model``."""
    for k in range(len(scopes) - 1, 0, -1):
        fn = scopes[k]
        if type(fn) in _FUNCTION_SCOPES:
            values, defs = _local_bindings(info, fn)
            if name in values and name not in defs:
                return scopes[k:]
    return scopes


def _local_bindings(info: ModuleInfo, fn: ast.AST) -> tuple[set[str], set[str]]:
    """(names ``fn`` binds to values, names it binds with a ``def``/``class``), ``global``/``nonlocal`` ones left
    out; cached per function node (the node, never its id, keys it)."""
    got = info.local_bindings.get(fn)
    if got is not None:
        return got
    a = fn.args  # type: ignore[attr-defined]
    values = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p is not None}
    defs: set[str] = set()
    declared: set[str] = set()
    stack: list[ast.AST] = [fn.body] if type(fn) is ast.Lambda else list(fn.body)  # type: ignore[attr-defined]
    while stack:
        n = stack.pop()
        t = type(n)
        if t in _OWN_SCOPE_ENDS:
            if t is not ast.Lambda and hasattr(n, "name"):
                defs.add(n.name)  # type: ignore[attr-defined]
            continue
        if t is ast.Name and type(n.ctx) is ast.Store:  # type: ignore[attr-defined]
            values.add(n.id)  # type: ignore[attr-defined]
        elif t is ast.Global or t is ast.Nonlocal:
            declared.update(n.names)  # type: ignore[attr-defined]
        elif t is ast.Import or t is ast.ImportFrom:
            values.update((al.asname or al.name).split(".")[0] for al in n.names)  # type: ignore[attr-defined]
        elif t is ast.ExceptHandler and n.name:  # type: ignore[attr-defined]
            values.add(n.name)  # type: ignore[attr-defined]
        stack.extend(iter_child_nodes(n))
    got = info.local_bindings[fn] = (values - declared, defs - declared)
    return got


def _function_names(node: ast.AST, bound: int = 0, kw: tuple[str, ...] = (),
                    given: tuple[str, ...] = ()) -> list[tuple[str, int, tuple[str, ...], tuple[str, ...]]]:
    """Functions referenced by an argument (``f``, ``self.f``, ``[f, g]``, ``partial(f, a, k=1)``),
    each with the number of leading positional arguments and the keywords a ``partial`` binds:
    those are Python values fixed before tracing, so the matching parameters are static; and the
    keywords among them bound to something other than ``None`` (every call through it passes them)."""
    if isinstance(node, ast.Name):
        return [(node.id, bound, kw, given)]
    if isinstance(node, ast.Attribute):
        if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            # `jax.jit(model.apply)`: which class's `apply` is unknown here; any method of that name may be
            # the one (a may fact), and a library's method may be none of them.
            root = node.value
            while type(root) is ast.Attribute:
                root = root.value
            held = ("<held>",) if type(root) is ast.Name and root.id == "self" else ()
            return [(node.attr, bound, kw + ("<attribute>",) + held, given)]
        return [(node.attr, bound, kw + ("<self>",), given)]  # a bound method: `self` is not among the call's arguments
    if isinstance(node, (ast.List, ast.Tuple)):
        return [n for e in node.elts for n in _function_names(e)]
    if isinstance(node, ast.Call) and node.args and isinstance(node.func, (ast.Name, ast.Attribute)):
        fname = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        if fname == "partial":
            spread = ("<**>",) if any(k.arg is None for k in node.keywords) else ()  # `partial(f, **params)`
            return _function_names(node.args[0], bound + len(node.args) - 1,
                                   kw + tuple(k.arg for k in node.keywords if k.arg) + spread,
                                   given + _given(node.keywords))
    return []


def _python_literal(node: ast.AST) -> bool:
    """``3``, ``-1``, ``True``, ``"mean"``, ``None``, ``(2, 3)``: a Python value, never an array."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if isinstance(node, ast.Tuple):
        return all(_python_literal(e) for e in node.elts)
    return isinstance(node, ast.Constant) and not isinstance(node.value, bytes)


def _note_blocks(tree: ast.AST, defs: set[ast.AST]) -> None:
    """Give each def of ``defs`` the line span of the statement list that holds it (``_jblock``)."""
    for node in ast_walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(node, field_name, None)
            if type(block) is list and block and any(st in defs for st in block):
                span = (block[0].lineno, block[-1].end_lineno or block[-1].lineno)
                for st in block:
                    if st in defs:
                        st._jblock = span  # type: ignore[attr-defined]
        for h in getattr(node, "handlers", ()) or ():
            if any(st in defs for st in h.body):
                for st in h.body:
                    if st in defs:
                        st._jblock = (h.body[0].lineno, h.body[-1].end_lineno or h.body[-1].lineno)


def _reaching_def(defs: list[ast.AST], site: ast.AST) -> ast.AST | None:
    """Of several defs of one name in a scope, the one a reference at ``site`` sees: the last def before it in a
    statement list that holds the site (a def in the other branch of an ``if`` never reaches it); None when no
    def precedes the site in such a list (a loop may carry one around, or the reference runs later)."""
    best = None
    line = getattr(site, "lineno", 0)
    for d in defs:
        start, end = getattr(d, "_jblock", (0, 0))
        if start <= d.lineno < line <= end and (best is None or d.lineno > best.lineno):  # type: ignore[attr-defined]
            best = d
    return best


def _given(keywords: list[ast.keyword]) -> tuple[str, ...]:
    """The keywords of a ``partial(f, k=v)`` bound to a value other than a literal ``None``."""
    return tuple(k.arg for k in keywords if k.arg and not (type(k.value) is ast.Constant and k.value.value is None))


def _with_bound(spec: StaticSpec, bound: int, kw: tuple[str, ...], given: tuple[str, ...] = ()) -> StaticSpec:
    """The spec of ``f`` when ``partial(f, <bound positionals>, **kw)`` is wrapped with ``spec``: the
    wrapper's argument numbers count from the first unbound parameter, and the bound ones are static;
    a keyword bound to a value other than ``None`` is passed on every call through the partial, so an
    ``if k is None:`` branch does not run there (``given``, the call graph's ``not_none``)."""
    if not bound and not kw:
        return spec
    argnums = tuple(i + bound if i >= 0 else i for i in spec.argnums) + tuple(range(bound))
    traced = None if spec.traced_argnums is None else tuple(i + bound for i in spec.traced_argnums)
    passed = None if spec.passed_positional is None else spec.passed_positional + bound
    unmapped = None if spec.unmapped_from is None else spec.unmapped_from + bound
    return replace(spec, argnums=argnums, argnames=tuple(spec.argnames) + kw, traced_argnums=traced,
                   passed_positional=passed, unmapped_from=unmapped, not_none=spec.not_none | frozenset(given))


DRIVER_NAMES = frozenset({"main", "_main", "cli", "run_main", "entrypoint", "entry_point"})
_LITERALS = (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple)
_SCALAR_SHAPES = ("()", "[]")


_CASTS = frozenset({"int", "float", "bool", "complex", "int8", "int16", "int32", "int64", "uint8", "uint32",
                    "float16", "bfloat16", "float32", "float64", "array", "asarray", "bool_"})


def _value_key(value: ast.expr | None) -> str:
    """A module binding's value for comparing bindings: ``jnp.int32(-1)`` and ``-1`` give the same key;
    anything not a literal gives a key with ``?`` (never equal to a constant)."""
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords and isinstance(
            value.func, (ast.Name, ast.Attribute)) and (
            value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in _CASTS:
        value = value.args[0]
    sign = ""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        sign, value = ("-" if isinstance(value.op, ast.USub) else ""), value.operand
    return sign + repr(value.value) if isinstance(value, ast.Constant) else "?"


def _scalar_array(call: ast.Call) -> bool:
    """``jnp.array(0)``, ``jnp.asarray(-1.0)``, ``jnp.zeros(())``: a 0-d array, as cheap to bake in as a float."""
    if not call.args:
        return False
    a = call.args[0]
    if isinstance(a, ast.UnaryOp) and isinstance(a.op, (ast.USub, ast.UAdd)):
        a = a.operand
    if isinstance(a, ast.Constant) and isinstance(a.value, (int, float, bool, complex)):
        return isinstance(call.func, (ast.Name, ast.Attribute)) and (
            call.func.id if isinstance(call.func, ast.Name) else call.func.attr) in ("array", "asarray")
    return isinstance(a, (ast.Tuple, ast.List)) and not a.elts


def _is_array_factory(q: str | None) -> bool:
    if not q:
        return False
    head, _, fn = q.rpartition(".")
    return head in ("jax.numpy", "numpy", "jax.random") and fn in ARRAY_FACTORIES


ARRAY_FACTORIES = frozenset({
    "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "identity", "zeros_like",
    "ones_like", "full_like", "normal", "uniform", "randn", "rand", "logspace", "meshgrid", "tile", "diag",
})


def _literal_tuple(node: ast.AST | None, kind: type) -> tuple:
    """The ``kind`` values in a literal ``v`` or ``(v, w)`` / ``[v]``; () for anything else."""
    if node is None:
        return ()
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ()

    def ok(v: object) -> bool:
        return isinstance(v, kind) and not isinstance(v, bool)

    if ok(value):
        return (value,)
    if isinstance(value, (tuple, list)) and all(ok(v) for v in value):
        return tuple(value)
    return ()


def literal_ints(node: ast.AST | None) -> tuple[int, ...]:
    """Integers in a literal ``1``, ``-1``, ``(0, 2)`` or ``[1]``; () for anything else."""
    return _literal_tuple(node, int)


def literal_strs(node: ast.AST | None) -> tuple[str, ...]:
    """Strings in a literal ``"n"`` or ``("n", "m")``; () for anything else."""
    return _literal_tuple(node, str)


def spec_from_call(info: ModuleInfo, call: ast.Call, wrapper: str, scope: object = None,
                   passthrough: bool = True) -> StaticSpec:
    """The StaticSpec of ``jax.jit(f, static_argnums=...)`` / ``partial(jax.jit, static_argnames=...)``.

    ``scope`` (the function the call is in) resolves names in ``in_axes=(0, *nones)``. ``passthrough``: a None
    in-spec of shard_map passes the caller's value through (False when the caller is a transform's tracer)."""
    kw = {k.arg: info.literal(k.value) for k in call.keywords if k.arg}
    nums = literal_ints(kw.get("static_argnums")) + literal_ints(kw.get("static_broadcasted_argnums"))
    names = literal_strs(kw.get("static_argnames"))
    traced = None
    for key, parse in (("static_argnums", literal_ints), ("static_broadcasted_argnums", literal_ints),
                       ("static_argnames", literal_strs)):
        value = kw.get(key)
        if value is not None and not parse(value) and not _empty_literal(value):
            # Static arguments computed at run time: which ones is unknowable here, so assume
            # every parameter may be static rather than report on a guess.
            return StaticSpec(wrapper=wrapper, traced_argnums=())
    if wrapper in GRAD_LIKE:
        traced = literal_ints(kw["argnums"]) if "argnums" in kw else (0,)
        if "argnums" in kw and not traced:
            traced = None
    t = known.lookup(wrapper)
    if passthrough and t is not None and t.specs_option is not None:  # shard_map: a None in-spec passes the caller's value through
        key, pos = t.specs_option
        specs = kw.get(key)
        if specs is None and pos < len(call.args) and info.resolve(call.func) == wrapper:
            specs = info.literal(call.args[pos])
        nums += unmapped_positions(specs)
    if wrapper in VMAP_LIKE:
        hashed = tuple(nums)
        axes = kw.get("in_axes")
        t = known.lookup(wrapper)
        pos = t.axes_option[1] if t is not None and t.axes_option else -1
        if axes is None and 0 < pos < len(call.args) and info.resolve(call.func) == wrapper:
            axes = info.literal(call.args[pos])  # jax.vmap(f, (0, None))
        axes = _fold_axes(axes)
        if isinstance(axes, ast.Constant) and axes.value is None:  # `in_axes=None`: every argument stays the caller's
            return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"), hashed_argnums=hashed,
                              unmapped_from=0)
        nums += unmapped_positions(axes)
        tail = _none_tail(axes, scope)
        if tail is not None:  # `in_axes=(0, 0, *nones, None)` with `nones = [None] * n`: the rest is unmapped
            return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"), hashed_argnums=hashed,
                              unmapped_from=tail)
        if axes is not None and not _literal_axes(axes):
            # in_axes computed at run time: any parameter may be unmapped, reaching the function as the
            # caller's (Python) value, so none is abstract on every way (a may fact, never an error).
            return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"), hashed_argnums=hashed,
                              must_names=frozenset())
        if isinstance(axes, (ast.Tuple, ast.List)):
            # A tuple `in_axes` has one entry per positional argument of every call (JAX raises otherwise):
            # `vmap(f, (0, None))` calls `f(x, a)`, and f's defaulted third parameter keeps its Python default.
            return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"), hashed_argnums=hashed,
                              unmapped_from=len(axes.elts))
        return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"), hashed_argnums=hashed)
    return StaticSpec(nums, names, traced, wrapper, wrapper.startswith("equinox.filter"))


def _none_tail(axes: ast.AST | None, scope: object) -> int | None:
    """In ``(0, 0, *nones, None)``, the position of ``*nones`` when ``nones`` is bound in ``scope`` (every time) to
    ``[None] * n`` (or ``(None,) * n``) and every later entry is ``None``: all positions from it are unmapped."""
    if not isinstance(axes, (ast.Tuple, ast.List)) or not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    star = next((i for i, e in enumerate(axes.elts) if isinstance(e, ast.Starred)), None)
    if star is None or not isinstance(axes.elts[star].value, ast.Name):  # type: ignore[attr-defined]
        return None
    if not all(isinstance(e, ast.Constant) and e.value is None for e in axes.elts[star + 1:]):
        return None
    name = axes.elts[star].value.id  # type: ignore[attr-defined]
    values = [s.value for s in ast_walk(scope) if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    return star if values and all(_nones(v) for v in values) else None


def _nones(v: ast.AST) -> bool:
    """``[None] * n`` or ``(None,) * n``."""
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult):
        seq = v.left if isinstance(v.left, (ast.List, ast.Tuple)) else v.right
        return isinstance(seq, (ast.List, ast.Tuple)) and bool(seq.elts) and all(
            isinstance(e, ast.Constant) and e.value is None for e in seq.elts)
    return False


def _fold_axes(axes: ast.AST | None) -> ast.AST | None:
    """``(0,) + (None,) * 2`` -> ``(0, None, None)``: tuples and lists of literals joined or repeated in the source."""
    if isinstance(axes, ast.BinOp) and isinstance(axes.op, (ast.Add, ast.Mult)):
        left, right = _fold_axes(axes.left), _fold_axes(axes.right)
        if isinstance(axes.op, ast.Add) and isinstance(left, (ast.Tuple, ast.List)) and type(left) is type(right):
            return ast.Tuple(elts=[*left.elts, *right.elts], ctx=ast.Load())  # type: ignore[union-attr]
        seq, count = (left, right) if isinstance(left, (ast.Tuple, ast.List)) else (right, left)
        if isinstance(axes.op, ast.Mult) and isinstance(seq, (ast.Tuple, ast.List)) and isinstance(count, ast.Constant) \
                and type(count.value) is int and 0 <= count.value <= 64:
            return ast.Tuple(elts=list(seq.elts) * count.value, ctx=ast.Load())
    return axes


def _literal_axes(axes: ast.AST) -> bool:
    """``0``, ``None``, ``(0, None, 1)``, ``((0, 0), None)``: every entry known without running the program."""
    if isinstance(axes, (ast.Tuple, ast.List)):
        return all(_literal_axes(e) for e in axes.elts)
    return isinstance(axes, ast.Constant) or (isinstance(axes, ast.UnaryOp) and isinstance(axes.operand, ast.Constant))


def unmapped_positions(axes: ast.AST | None) -> tuple[int, ...]:
    """Positions whose entry is ``None`` in a literal ``in_axes=(0, None, ...)``."""
    if not isinstance(axes, (ast.Tuple, ast.List)):
        return ()
    return tuple(i for i, e in enumerate(axes.elts) if isinstance(e, ast.Constant) and e.value is None)


def _empty_literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.Tuple, ast.List)) and not node.elts


def traces_abstractly(spec: StaticSpec) -> bool:
    """Does the wrapper of ``spec`` give its function abstract values whatever its caller (jit, vmap, a
    scan body), rather than concrete ones under an eager caller (grad, vjp, shard_map)?"""
    t = known.lookup(spec.wrapper)
    return t is None or t.makes == "abstract"


def decorator_spec(info: ModuleInfo, dec: ast.expr) -> StaticSpec | None:
    """How a decorator traces the function it decorates, or None if it does not."""
    q = info.resolve(dec)
    if q in ("flax.linen.compact", "flax.linen.module.compact"):
        # A Flax module's compact __call__ runs under the jit/grad of model.apply; parameters
        # annotated int/bool/str/Callable are configuration, as with equinox's filter_jit.
        return StaticSpec(wrapper=q, filter=True, staged="may", closed=False, assumed=True)
    spec = None
    if q in TRACES:
        spec = StaticSpec(wrapper=q, filter=q.startswith("equinox.filter"),
                          traced_argnums=(0,) if q in GRAD_LIKE else None)
    elif isinstance(dec, ast.Call):
        fq = info.resolve(dec.func)
        if fq in TRACES and not dec.args:  # @jax.jit(static_argnames=...) decorator factory
            spec = spec_from_call(info, dec, fq)
        elif fq in ("functools.partial", "partial") and dec.args:
            inner = info.resolve(dec.args[0])
            if inner in TRACES:
                spec = spec_from_call(info, dec, inner)
    if spec is not None:
        t = known.lookup(spec.wrapper)
        if t is not None and t.python_runs == "each_call":
            # @jax.vmap / @jax.grad: the body is staged (and, for grad, abstract) only when the
            # decorated function is called from traced code: the call graph finds those calls.
            spec.staged = ""
    return spec
