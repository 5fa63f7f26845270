"""Donated buffers: which calls donate which arguments, and what the code does with them afterwards.

A jit (or pmap) built with ``donate_argnums``/``donate_argnames`` hands the donated argument's buffer to an
output of the same shape and dtype: JAX deletes the array after the call, and any later use raises
``RuntimeError: Array has been deleted`` (CPU donates too since JAX 0.4; a donated buffer that matches no output
is not reused, and the array survives). ``jax.pmap`` donates positional arguments only
(``Transform.donates_positional_only``): an argument passed by keyword is not donated, silently.

The model here is per module, over names it can follow: a handle bound once in a function or at module level
(``step = jax.jit(f, donate_argnums=0)``), a method's ``self.step = jax.pmap(...)`` called as ``self.step(...)``
in the methods of the same class, and a module-level def decorated with ``@partial(jax.jit, donate_argnums=...)``.
Each call's donated arguments that are plain local names are followed through the rest of the function in
execution order (the statements after the call, then after each enclosing block; a loop's next iteration
reaches the call again): a read before the name is bound again is a use of the deleted array.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ..jaxmodel import known
from .astutil import ast_walk, iter_child_nodes, own_nodes
from .scope import literal_ints, literal_strs

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


@dataclass
class Handle:
    """A callable that donates: where its options are, and which positions/names it donates."""

    wrapper: str  # resolved qualified name of the jit/pmap
    built: ast.Call  # the wrapper call (or the decorator's call)
    option: ast.expr  # the donate option's value (where a fix that stops donating goes)
    option_name: str  # donate_argnums / donate_argnames
    positions: frozenset[int]
    names: frozenset[str]
    positional_only: bool


@dataclass
class Finding:
    kind: str  # "read" | "loop" | "keyword" | "caller" | "twice"
    node: ast.AST  # where to report
    call: ast.Call  # the donating call
    handle: Handle
    arg: str  # the donated name (or keyword)
    extra: dict = field(default_factory=dict)


def _ints(node: ast.expr) -> frozenset[int] | None:
    return frozenset(got) if (got := literal_ints(node)) else None


def _strs(node: ast.expr) -> frozenset[str] | None:
    return frozenset(got) if (got := literal_strs(node)) else None


def _handle(call: ast.Call, resolve, fn_params: list[str] | None) -> Handle | None:
    """The donation a wrapper call ``jax.jit(f, donate_argnums=...)`` (or ``partial(jax.jit, ...)``) sets up."""
    wrapper = resolve(call.func)
    if wrapper == "functools.partial" and call.args:
        wrapper = resolve(call.args[0])
    t = known.lookup(wrapper)
    if t is None or not t.donate_options or not t.compiles:
        return None
    positions: set[int] = set()
    names: set[str] = set()
    option = None
    option_name = ""
    for kw in call.keywords:
        if kw.arg is None:
            return None  # **options: the model cannot read them
        if kw.arg not in t.donate_options:
            continue
        ints, strs = _ints(kw.value), _strs(kw.value)
        if ints is None and strs is None:
            return None
        positions |= ints or set()
        names |= strs or set()
        option, option_name = kw.value, kw.arg
    if option is None or not (positions or names):
        return None
    if fn_params is not None:  # jit maps names and positions onto each other through the signature
        positions |= {fn_params.index(n) for n in names if n in fn_params}
        names |= {fn_params[i] for i in positions if i < len(fn_params)}
    return Handle(wrapper, call, option, option_name, frozenset(positions), frozenset(names), t.donates_positional_only)


def _positional_params(fdef: ast.AST | None) -> list[str] | None:
    if not isinstance(fdef, _FUNCS) or fdef.args.vararg is not None:
        return None
    return [a.arg for a in [*fdef.args.posonlyargs, *fdef.args.args]]


def handles(tree: ast.Module, resolve) -> tuple[dict, dict, dict]:
    """(module-level handles by name, per-function local handles {fdef: {name: Handle}}, per-class
    attribute handles {classdef: {attr: Handle}}). A name bound more than once in its scope is dropped."""
    defs = {s.name: s for s in tree.body if isinstance(s, _FUNCS)}
    module: dict[str, Handle | None] = {}
    local: dict[ast.AST, dict[str, Handle | None]] = {}
    attrs: dict[ast.AST, dict[str, Handle | None]] = {}

    def wrapped_params(call: ast.Call) -> list[str] | None:
        if resolve(call.func) == "functools.partial" or not call.args or not isinstance(call.args[0], ast.Name):
            return None
        return _positional_params(defs.get(call.args[0].id))

    def bind(table: dict, key: str, h: Handle | None) -> None:
        table[key] = None if key in table else h  # bound twice: say less

    for s in tree.body:
        if isinstance(s, _FUNCS):
            for d in s.decorator_list:
                if isinstance(d, ast.Call):
                    h = _handle(d, resolve, _positional_params(s))
                    if h is not None:
                        bind(module, s.name, h)
    for scope in [tree, *(n for n in ast_walk(tree) if isinstance(n, _FUNCS))]:
        cls = _method_class(tree, scope)
        for n in own_nodes(*scope.body):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call):
                tgt = n.targets[0]
                h = _handle(n.value, resolve, wrapped_params(n.value))
                if isinstance(tgt, ast.Name):
                    bind(module if scope is tree else local.setdefault(scope, {}), tgt.id, h)
                elif (isinstance(tgt, ast.Attribute) and isinstance(tgt.value, ast.Name) and tgt.value.id == "self"
                      and cls is not None):
                    bind(attrs.setdefault(cls, {}), tgt.attr, h)
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for m in ast_walk(t):
                        if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store):
                            bind(module if scope is tree else local.setdefault(scope, {}), m.id, None)
                        elif (isinstance(m, ast.Attribute) and isinstance(m.value, ast.Name) and m.value.id == "self"
                              and cls is not None):
                            bind(attrs.setdefault(cls, {}), m.attr, None)
    return module, local, attrs


def _method_class(tree: ast.Module, scope: ast.AST) -> ast.ClassDef | None:
    for c in tree.body:
        if isinstance(c, ast.ClassDef) and scope in c.body:
            return c
    return None


# -- what the function does with a donated name after the call ------------------------------------------
_METADATA = frozenset({"shape", "dtype", "ndim", "size", "aval", "weak_type", "is_deleted", "sharding"})


def _blocks(fdef: ast.AST) -> dict[ast.stmt, tuple[ast.AST, list[ast.stmt], int]]:
    """Every statement of ``fdef`` (not of nested functions) -> (its owner, the block holding it, its index)."""
    out: dict[ast.stmt, tuple[ast.AST, list[ast.stmt], int]] = {}
    stack: list[ast.AST] = [fdef]
    while stack:
        owner = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(owner, name, None)
            if not isinstance(block, list):
                continue
            for i, s in enumerate(block):
                out[s] = (owner, block, i)
                if not isinstance(s, (*_FUNCS, ast.ClassDef)):
                    stack.append(s)
    return out


def _stores(stmt: ast.AST, name: str) -> bool:
    for n in own_nodes(stmt):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(n, (*_FUNCS, ast.ClassDef)) and n is not stmt and n.name == name:
            return True
    return False


def _buffer_reads(stmt: ast.AST, name: str) -> list[ast.Name]:
    """Loads of ``name`` in ``stmt`` that touch the array's buffer (``x is None``, ``x.shape``, ``isinstance(x,
    ...)`` and ``del x`` do not), in source order."""
    skip: set[ast.AST] = set()
    for n in own_nodes(stmt):
        if isinstance(n, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops):
            skip.update(c for c in [n.left, *n.comparators])
        elif isinstance(n, ast.Attribute) and n.attr in _METADATA:
            skip.add(n.value)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            skip.add(n.value)  # `del batch["mask"]`, `batch["k"] = v`: the Python container, not a buffer
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "type", "id"):
            skip.update(n.args)
    return [n for n in own_nodes(stmt) if isinstance(n, ast.Name) and n.id == name
            and isinstance(n.ctx, ast.Load) and n not in skip]


def _ends(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue))


def after_call(where: dict[ast.stmt, tuple[ast.AST, list[ast.stmt], int]], stmt: ast.stmt,
               name: str) -> tuple[str, ast.AST] | None:
    """What happens to ``name`` (donated by a call in ``stmt``) after ``stmt`` runs: ("read", the Name read
    first), ("loop", the loop whose next iteration donates it again), or None (bound again first, or never
    read, or the model cannot tell). ``where``: ``_blocks`` of the function holding ``stmt``."""
    cur: ast.stmt = stmt
    while cur in where:
        owner, block, i = where[cur]
        for t in block[i + 1:]:
            reads = _buffer_reads(t, name)
            if reads:
                first_store = next((n for n in own_nodes(t) if isinstance(n, ast.Name) and n.id == name
                                    and isinstance(n.ctx, (ast.Store, ast.Del))), None)
                if isinstance(t, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)) or \
                        first_store is None or _before(reads[0], first_store):
                    return "read", reads[0]
            if _stores(t, name) or _ends(t):
                return None
        if isinstance(owner, _LOOPS) and cur in owner.body:
            if _stores(owner, name) or any(_ends(s) for s in owner.body[owner.body.index(cur):]):
                return None
            return "loop", owner
        if isinstance(owner, ast.Try) and cur in owner.finalbody:
            return None
        if not isinstance(owner, ast.stmt) or isinstance(owner, (*_FUNCS, ast.ClassDef)):
            return None
        cur = owner
    return None


def _before(a: ast.AST, b: ast.AST) -> bool:
    return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)  # type: ignore[attr-defined]


def _own_calls(stmt: ast.stmt):
    """The calls in ``stmt``'s own expressions (not in the statements it holds, nor in nested scopes)."""
    for child in iter_child_nodes(stmt):
        if isinstance(child, (ast.stmt, ast.excepthandler)) or type(child).__name__ == "match_case":
            continue
        for n in own_nodes(child):
            if isinstance(n, ast.Call):
                yield n


def _param_names(fdef: ast.AST) -> set[str]:
    if not isinstance(fdef, _FUNCS):
        return set()
    a = fdef.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} - {"self", "cls"}


def _gives_back(fdef: ast.AST, stmt: ast.stmt, call: ast.Call) -> bool:
    """Does anything of ``call``'s result leave ``fdef`` (returned, yielded, stored on an object, appended)?"""
    if isinstance(stmt, (ast.Return, ast.Expr)) and not (isinstance(stmt, ast.Expr) and stmt.value is call):
        return True
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return True  # used in a test, a loop header, ...: say less
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    names = set()
    for t in targets:
        for m in ast_walk(t):
            if isinstance(m, (ast.Attribute, ast.Subscript)):
                return True
            if isinstance(m, ast.Name):
                names.add(m.id)
    for n in own_nodes(*fdef.body):  # type: ignore[attr-defined]
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
            return True
        if isinstance(n, ast.Return) and n.value is not None and any(
                isinstance(m, ast.Name) and m.id in names for m in ast_walk(n.value)):
            return True
        if isinstance(n, ast.Call) and n is not call and any(
                isinstance(m, ast.Name) and m.id in names for a in [*n.args, *(k.value for k in n.keywords)]
                for m in ast_walk(a)) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "append", "extend", "update", "put", "add", "insert", "setdefault"):
            return True
        if isinstance(n, (ast.Assign, ast.AugAssign)) and any(
                isinstance(m, ast.Name) and m.id in names for m in ast_walk(n.value)) and any(
                isinstance(t, (ast.Attribute, ast.Subscript)) for t in (
                n.targets if isinstance(n, ast.Assign) else [n.target])):
            return True
    return False


def findings(tree: ast.Module, resolve) -> dict[ast.AST, list[Finding]]:
    """Donation findings of the module, keyed by the node the walk reports them from (a call)."""
    module, local, attrs = handles(tree, resolve)
    out: dict[ast.AST, list[Finding]] = {}
    if not any(module.values()) and not any(any(t.values()) for t in (*local.values(), *attrs.values())):
        return out  # no donating handle in the module: nothing to follow
    scopes = [tree, *(n for n in ast_walk(tree) if isinstance(n, _FUNCS))]
    for scope in scopes:
        cls = _method_class(tree, scope)
        mine = local.get(scope, {})
        shadowed = _assigned(scope) if scope is not tree else set()
        params = _param_names(scope)
        where = _blocks(scope)
        for stmt in where:
            for call in _own_calls(stmt):
                f = call.func
                h = None
                if isinstance(f, ast.Name):
                    h = mine.get(f.id) if f.id in mine else (
                        module.get(f.id) if f.id not in shadowed and f.id not in params else None)
                elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
                      and cls is not None):
                    h = attrs.get(cls, {}).get(f.attr)
                if h is not None:
                    _check_call(scope, where, stmt, call, h, params, out, resolve)
    return out


def _assigned(scope: ast.AST) -> set[str]:
    return {n.id for n in own_nodes(*scope.body) if isinstance(n, ast.Name)  # type: ignore[attr-defined]
            and isinstance(n.ctx, ast.Store)} | {n.name for n in own_nodes(*scope.body)  # type: ignore[attr-defined]
                                                 if isinstance(n, (*_FUNCS, ast.ClassDef))}


def _check_call(scope: ast.AST, where: dict, stmt: ast.stmt, call: ast.Call, h: Handle, params: set[str],
                out: dict[ast.AST, list[Finding]], resolve=None) -> None:
    star = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
    donated: list[tuple[str, ast.expr]] = [(a.id, a) for i, a in enumerate(call.args[:star])
                                          if i in h.positions and isinstance(a, ast.Name)]
    if h.positional_only:
        for kw in call.keywords:
            if kw.arg is not None and kw.arg in h.names or (
                    kw.arg is not None and not h.names and star == len(call.args)
                    and any(p >= len(call.args) for p in h.positions)):
                out.setdefault(call, []).append(Finding("keyword", kw.value, call, h, kw.arg))
                break
    else:
        donated += [(k.value.id, k.value) for k in call.keywords
                    if k.arg in h.names and isinstance(k.value, ast.Name)]
    _passed_twice(call, donated, out, h, lambda n: _host_only(scope, n, params, resolve))
    if isinstance(scope, ast.Module) and not donated:
        return
    targets: set[str] = set()
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
            targets |= {m.id for m in ast_walk(t) if isinstance(m, ast.Name)}
    for name, node in donated:
        if name in targets:
            continue  # x = f(x): the name now holds the result
        got = after_call(where, stmt, name)
        if got is not None:
            kind, where = got
            out.setdefault(call, []).append(Finding(kind, where if kind == "read" else node, call, h, name))
        elif (name in params and not isinstance(scope, ast.Module)
              and not any(_stores(s, name) for s in scope.body)  # type: ignore[attr-defined]
              and not _gives_back(scope, stmt, call)):
            got_caller = next((f for f in out.get(h.built, ()) if f.kind == "caller" and f.call is call), None)
            if got_caller is not None:
                got_caller.extra["names"].append(name)
            else:
                out.setdefault(h.built, []).append(Finding("caller", h.option, call, h, name,
                                                           {"function": getattr(scope, "name", ""), "names": [name]}))


def _host_only(scope: ast.AST, name: str, params: set[str], resolve) -> bool:
    """Whether every binding of ``name`` in ``scope`` is a number literal or a NumPy constructor call
    (``np.ones(3)``): a host value. jit copies a host argument to the device for each parameter, so the
    same name passed twice gives two buffers and donating one is fine (run under real JAX)."""
    if name in params or resolve is None:
        return False
    values = []
    for n in own_nodes(*getattr(scope, "body", [])):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            values.append(None)  # counted below when it is a plain `name = value`
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
    plain = [n.value for n in own_nodes(*getattr(scope, "body", []))
             if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
             and any(isinstance(t, ast.Name) and t.id == name for t in (
                 n.targets if isinstance(n, ast.Assign) else [n.target]))]
    if not values or len(plain) != len(values):
        return False  # bound some other way too (a loop, a tuple target, an import, augmented assignment)
    return all(_host_value(v, resolve) for v in plain)


def _host_value(v: ast.expr, resolve) -> bool:
    if isinstance(v, ast.UnaryOp) and isinstance(v.op, (ast.USub, ast.UAdd)):
        v = v.operand
    if isinstance(v, ast.Constant):
        return isinstance(v.value, (int, float, complex)) and not isinstance(v.value, bool)
    return isinstance(v, ast.Call) and (resolve(v.func) or "").startswith("numpy.")


def _passed_twice(call: ast.Call, donated: list[tuple[str, ast.expr]], out: dict[ast.AST, list[Finding]],
                  h: Handle, host_only: Callable[[str], bool]) -> None:
    """A donated name passed again in the same call (``f(x, x)`` donating the first): the executable gets one
    buffer twice and refuses it at every call, "Attempt to use a buffer that was previously donated in the same
    call" (donated once) or "Attempt to donate the same buffer twice" (both donated), on CPU too."""
    passed = [a for a in call.args if isinstance(a, ast.Name)] + [
        k.value for k in call.keywords if k.arg is not None and isinstance(k.value, ast.Name)]
    for name, node in donated:
        again = next((a for a in passed if a.id == name and a is not node), None)
        if again is not None and not any(f.kind == "twice" and f.arg == name for f in out.get(call, ())) \
                and not host_only(name):  # asked only of a name passed twice: it walks the function's body
            out.setdefault(call, []).append(Finding("twice", again, call, h, name))
