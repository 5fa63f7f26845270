"""The single walk over a module: frames, dataflow, and dispatch of nodes to the rules.

``_Visitor.visit`` calls every rule subscribed to a node's type (only inside traced
functions unless the rule says otherwise), then descends. Function definitions push a
``Frame`` (traced or not, with static parameters); assignments, loops, comprehensions and
``with`` update which names hold traced values.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..jaxmodel import known
from ..jaxmodel.families import MODULE_CALL_DATA_INPUTS
from . import branches, evidence, facts, guards, pytrees
from .astutil import children
from .context import NESTED, Context, Frame, container_call
from .params import (
    container_annotation,
    enum_valued,
    non_array_annotation,
    only_truth_tested,
    python_default,
    used_as_host_size,
    used_like_array,
)
from .rule import Rule
from .scope import BODY_ARGS, TRACES, VMAP_LIKE, StaticSpec, decorator_spec, spec_from_call, traces_abstractly


class _Visitor:
    """The single walk: maintains frames and dataflow, dispatches nodes to subscribed rules."""

    def __init__(self, ctx: Context, rules: list[Rule]) -> None:
        self.ctx = ctx
        self.rules = rules
        # node type -> (rules checked only in traced code, rules checked everywhere, special handler)
        self.table: dict[type, tuple[tuple[Rule, ...], tuple[Rule, ...], object]] = {}
        self.call_table: _CallTable | None = None
        # Which rule classes a node type or a callee selects depends on the classes alone: worked out once per
        # set of classes (``_shared``) for every file, then turned into this visitor's instances.
        classes = tuple(type(r) for r in rules)
        shared = _SHARED.get(classes)
        # Made again when a class has other `nodes`, `calls` or `traced_only` than the tables were made from (a
        # test's monkeypatch): the objects are compared by identity, cheaper than keying by their values.
        if shared is None or any(c.nodes is not n or c.calls is not k or c.traced_only is not t
                                 for c, n, k, t in shared[3]):
            shared = _shared(classes)
        self.shared = shared
        self.instance: dict[type, Rule] = dict(zip(classes, rules, strict=True))
        self.instances: dict[tuple[type, ...], tuple[Rule, ...]] = {}
        self.constant_rules = any(ast.Constant in r.nodes for r in rules)
        self.name_rules: tuple[dict[str, tuple[Rule, ...]], tuple[Rule, ...]] | None = None
        self.forced: dict[ast.AST, StaticSpec] = {}  # def -> spec found by the call graph (lint/callgraph.py)

    def _entry(self, t: type) -> tuple[tuple[Rule, ...], tuple[Rule, ...], object]:
        types = self.shared[0]
        found = types.get(t)
        if found is None:
            subscribed = [c for c in self.shared[2] if t in c.nodes]
            found = types[t] = (tuple(c for c in subscribed if c.traced_only),
                                tuple(c for c in subscribed if not c.traced_only))
        entry = self.table[t] = (self._instances(found[0]), self._instances(found[1]),
                                 _SPECIAL.get(t, _LEAF if t in _LEAVES else None))
        return entry

    def _instances(self, classes: tuple[type, ...]) -> tuple[Rule, ...]:
        """This visitor's rules of ``classes``, in their order."""
        got = self.instances.get(classes)
        if got is None:
            got = self.instances[classes] = tuple(self.instance[c] for c in classes)
        return got

    def visit(self, node: ast.AST) -> None:
        t = type(node)
        if t is ast.Constant and not self.constant_rules:
            return  # a leaf no rule looks at: the most common node after names
        ctx = self.ctx
        if t is ast.Call:
            self._call(node)  # type: ignore[arg-type]
            return
        if t is ast.Name:
            names = self.name_rules
            if names is None:
                names = self._name_rules()
            hit = names[0].get(node.id, names[1])  # type: ignore[attr-defined]
            if hit:
                traced = ctx.frames[-1].traced
                for r in hit:
                    if traced or not r.traced_only:
                        try:
                            r.check(node, ctx)
                        except Exception as e:  # noqa: BLE001 - a rule's bug must not lose the file's other findings
                            ctx.rule_failed(r, node, e)
            return
        entry = self.table.get(t) or self._entry(t)
        traced_rules, any_rules, special = entry
        if traced_rules and ctx.frames[-1].traced:
            for r in traced_rules:
                try:
                    r.check(node, ctx)
                except Exception as e:  # noqa: BLE001 - a rule's bug must not lose the file's other findings
                    ctx.rule_failed(r, node, e)
        for r in any_rules:
            try:
                r.check(node, ctx)
            except Exception as e:  # noqa: BLE001
                ctx.rule_failed(r, node, e)
        if special is _LEAF:
            return
        ctx.parents.append(node)
        if special is not None:
            special(self, node)  # type: ignore[operator]
        else:
            kids = node.__dict__.get("_jc")  # children cached by the pre-pass
            for child in kids if kids is not None else children(node):
                self.visit(child)
        ctx.parents.pop()

    def _name_rules(self) -> tuple[dict[str, tuple[Rule, ...]], tuple[Rule, ...]]:
        """Name rules by the module-level names that can trigger them (``Rule.names``), and those for any name."""
        subscribed = [r for r in self.rules if ast.Name in r.nodes]
        wanted = [(r, r.names(self.ctx.info)) for r in subscribed]
        always = tuple(r for r, names in wanted if names is None)
        by_name: dict[str, tuple[Rule, ...]] = {}
        for r, names in wanted:
            for n in names or ():
                by_name[n] = by_name.get(n, always) + (r,)
        self.name_rules = (by_name, always)
        return self.name_rules

    def _call(self, node: ast.Call) -> None:
        """Check a call with only the rules whose ``calls`` patterns match its callee, then descend."""
        ctx = self.ctx
        table = self.call_table
        if table is None:
            table = self.call_table = self.shared[1]
        if table.rules:
            traced = ctx.frames[-1].traced
            for r in self._instances(table.matching(ctx, node)):
                if traced or not r.traced_only:
                    try:
                        r.check(node, ctx)
                    except Exception as e:  # noqa: BLE001 - a rule's bug must not lose the file's other findings
                        ctx.rule_failed(r, node, e)
        ctx.parents.append(node)
        kids = node.__dict__.get("_jc")
        for child in kids if kids is not None else children(node):
            self.visit(child)
        ctx.parents.pop()

    def visit_all(self, nodes: Iterable[ast.AST]) -> None:
        for n in nodes:
            self.visit(n)

    # -- functions -----------------------------------------------------------------------------
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        ctx = self.ctx
        outer = ctx.frame
        if not isinstance(node, ast.Lambda):
            self.visit_all(node.decorator_list)
            if node.returns is not None:
                self.visit(node.returns)
            outer.bound.add(node.name)
            outer.nested_defs.add(node.name)
            if outer.loop_depth:
                outer.loop_defs.add(node.name)
        self.visit_all(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
        spec = self._trace_spec(node, outer)
        captured = _captured_defaults(ctx, node, outer) if spec is not None else frozenset()
        if ctx.observed:
            spec = evidence.observe(ctx, node, spec)
        name = getattr(node, "name", "<lambda>")
        frame = Frame(node, name, traced=spec is not None, spec=spec)
        a = node.args
        params = [p for p in a.posonlyargs + a.args + a.kwonlyargs] + [p for p in (a.vararg, a.kwarg) if p]
        frame.params = {p.arg for p in params}
        if spec is not None:
            owner = pytrees.self_class(ctx, node) if a.args and a.args[0].arg == "self" else None
            if owner is not None:  # `self` of a pytree: its array fields are traced leaves
                frame.pytrees.add("self")
                frame.classes["self"] = owner
            frame.static = spec.static_params(node) - spec.observed_abstract
            frame.pytrees.update(spec.pytrees)
            frame.not_none = spec.not_none
            frame.proven = spec.proven
            if spec.handle_not_none and ctx.info.wrapped_refs.get(name, 0) <= 1:  # the private handle is its only way
                frame.not_none = frame.not_none | spec.handle_not_none
            if spec.pytree_argnums:
                names = [p.arg for p in a.posonlyargs + a.args]
                frame.pytrees.update(names[i] for i in spec.pytree_argnums if i < len(names))
            defaults = _param_defaults(a)
            must_capable = spec.must_names
            positional = a.posonlyargs + a.args
            never = facts.defaults_never_passed(self.ctx, node, spec, [
                (i, p.arg) for i, p in enumerate(positional) if p.arg in defaults] + [
                (10_000, p.arg) for p in a.kwonlyargs if p.arg in defaults]) if defaults else set()
            never |= facts.python_passed(self.ctx, node, spec, [p.arg for p in positional])  # filter_jit(f)(x, 3)
            passed = (spec.passed_positional, spec.passed_keywords) if spec.passed_positional is not None else None
            if passed is not None and spec.from_calls and ctx.info.wrapped_refs.get(name, 0) > 1:
                # `jax.vmap(f)(xs)` in two places: what every call of every transform of `f` passes, if all are seen
                passed = ctx.info.applied_all.get(name)
            if passed is not None:  # `lax.cond(p, f, g, x)` calls f(x): its `axis=-1` stays -1
                skip = 1 if spec.bound_self and positional and positional[0].arg in ("self", "cls") else 0
                never |= {p.arg for i, p in enumerate(positional)
                          if i >= passed[0] + skip and p.arg in defaults} - passed[1]
                never |= {p.arg for p in a.kwonlyargs if p.arg in defaults} - passed[1]
            flax = spec.wrapper in FLAX_METHODS
            convention = spec.assumed and spec.filter and not flax  # an equinox/nnx Module's `__call__`, no call seen
            inputs = [p for i, p in enumerate(positional) if not (i == 0 and p.arg in ("self", "cls"))]
            first_input = inputs[0] if inputs else None
            data = inputs[:MODULE_CALL_DATA_INPUTS]
            for i, p in enumerate(params):
                if p.arg in spec.observed_abstract:
                    frame.traced_names.add(p.arg)  # the run saw it abstract: an observation, not a guess
                    frame.arrays.add(p.arg)
                    continue
                if p.arg in frame.static or p.arg in frame.pytrees or p.arg in never:
                    continue
                if flax and p is not first_input and not _array_annotation(p.annotation):
                    continue  # `__call__(self, x, train)`: only the input is data; the rest configure the layer
                if convention and p not in data and not _array_annotation(p.annotation) \
                        and not used_like_array(node, p.arg):
                    continue  # `model(x, 4)`: a Python number its caller passes stays one (MODULE_CALL_DATA_INPUTS)
                if spec.assumed and not _array_annotation(p.annotation) and used_as_host_size(node, p.arg, ctx.resolve):
                    continue  # `__call__(self, qlen)` with `np.arange(qlen)`: the convention's guess yields to the body
                if (i == 0 and p in positional and p.arg in ("self", "cls")) or p is a.vararg or p is a.kwarg:
                    continue  # self, and *args / **kwargs (a tuple / dict of values, not an array)
                if _static_default(defaults.get(p.arg)):
                    continue  # `training=False`: a Python value unless the caller passes one
                if p.arg in captured:
                    continue  # `lambda key, s=shape:`: the closure's own capture of a Python value, never passed
                if enum_valued(ctx, defaults.get(p.arg), None):
                    continue  # `method=Combine.SUM`: an enum member default, a Python value unless one is passed
                if spec.filter and (non_array_annotation(p.annotation) or python_default(defaults.get(p.arg)) or (
                        p.annotation is None and only_truth_tested(node, p.arg)) or enum_valued(ctx, None, p.annotation)):
                    continue  # filter_jit traces array leaves only: a Python value stays static
                if container_annotation(p.annotation):
                    frame.pytrees.add(p.arg)  # `xs: Sequence[Array]`: a Python container of traced arrays
                    continue
                cls = pytrees.annotated_class(ctx, p.annotation)
                if cls is not None:  # `state: EnvState`: a pytree object; its array fields are traced leaves
                    frame.pytrees.add(p.arg)
                    frame.classes[p.arg] = cls
                    continue
                frame.traced_names.add(p.arg)
                frame.arrays.add(p.arg)
                # Abstract on every way the function is reached: always passed (no default the caller may
                # leave out), traced by any wrapper (filter_jit keeps non-array values static), and the call
                # graph saw an abstract value for it on every recorded call.
                if p.arg not in defaults and (not spec.filter or _array_annotation(p.annotation) or (
                        p.annotation is None and used_like_array(node, p.arg))) and (
                        must_capable is None or p.arg in must_capable):
                    frame.must.add(p.arg)
        ctx.frames.append(frame)
        try:
            if isinstance(node, ast.Lambda):
                self.visit(node.body)
            else:
                self.visit_all(node.body)
        finally:
            ctx.frames.pop()

    def _trace_spec(self, node: ast.AST, outer: Frame) -> StaticSpec | None:
        info = self.ctx.info
        if self.ctx.assume_traced:
            return StaticSpec(wrapper="<assumed>")
        if self.forced and node in self.forced:
            return self.forced[node]
        if not isinstance(node, ast.Lambda):
            for dec in node.decorator_list:
                spec = decorator_spec(info, dec)
                if spec is not None and (traces_abstractly(spec) or outer.traced):
                    # @jax.grad / @shard_map alone: concrete values under an eager caller; the call graph
                    # traces the function when traced code calls it. Inside traced code: abstract.
                    if outer.traced and not spec.staged:
                        spec.staged = facts.staged(self.ctx)
                    if isinstance(outer.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        # a local `@jit def body(i, val)` handed to `lax.fori_loop(..., [a, b])`: jit passes the
                        # loop's Python list through as a list of tracers (every call of a local def is seen)
                        loop = info.traced_spec(outer.node, node.name, node)
                        if loop is not None and loop.pytree_argnums and not spec.pytree_argnums:
                            spec = replace(spec, pytree_argnums=loop.pytree_argnums)
                    return spec
            spec = info.traced_spec(outer.node if outer.node is not None else 0, node.name, node)
            if spec is not None:
                return spec
        else:
            parents = self.ctx.parents
            parent = parents[-2] if len(parents) >= 2 else None
            if isinstance(parent, (ast.List, ast.Tuple)) and len(parents) >= 3:
                parent = parents[-3]  # lax.switch(i, [lambda ..., ...], x)
            if isinstance(parent, ast.Call) and node in _traced_call_args(self.ctx, parent):
                wrapper = self.ctx.resolve(parent.func) or ""
                # `jax.vmap(lambda x, n: ..., in_axes=(0, None))`: an unmapped argument stays the caller's value
                spec = spec_from_call(info, parent, wrapper, outer.node) if wrapper in VMAP_LIKE and \
                    parent.args and parent.args[0] is node else StaticSpec(wrapper=wrapper)
                t = known.lookup(spec.wrapper)
                if t is not None and t.body_arity is not None and t.body_arity >= 0:
                    spec.passed_positional = t.body_arity
                inside = parent in info.inside_traced  # jax.jit(jax.vmap(lambda ...)): under the jit
                if t is not None and t.python_runs == "each_call":
                    if t.makes != "abstract" and not outer.traced and not inside:
                        return None  # jax.grad(lambda p: ...) in eager code: concrete values
                    spec.staged = "must" if inside else facts.staged(self.ctx) if outer.traced else ""
                if t is not None and t.trace_only:
                    spec.staged = ""
                return spec
        if outer.traced:
            # A plain helper defined inside traced code: its body is traced, but what its callers pass
            # is unknown (often static Python values), so only closure variables count as traced.
            return StaticSpec(wrapper=NESTED, traced_argnums=(), staged=facts.staged(self.ctx))
        return None

    def _class(self, node: ast.ClassDef) -> None:
        self.ctx.frame.bound.add(node.name)
        for child in children(node):
            self.visit(child)

    # -- dataflow ------------------------------------------------------------------------------
    def _bind(self, target: ast.AST, traced: bool, mask: bool = False, array: bool = False,
              must: bool = False) -> None:
        f = self.ctx.frame
        if isinstance(target, ast.Name):
            f.bound.add(target.id)
            for s, on in ((f.traced_names, traced), (f.masks, mask), (f.arrays, array), (f.must, must)):
                if on:
                    s.add(target.id)
                else:
                    s.discard(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self._bind(e, traced, False, array, must)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, traced, False, array, must)

    def _value_facts(self, value: ast.AST) -> tuple[bool, bool, bool, bool]:
        ctx = self.ctx
        traced = ctx.is_traced(value)
        must = traced and self._any_must() and ctx.is_must(value)
        mask = traced and ctx.is_mask(value)
        if not traced and type(value) is ast.Call and ctx.is_mask(value):
            traced = mask = True  # `m = make_mask(n, k)`: a jnp mask the staged helper returns (lint/returns.py)
        if not traced and type(value) is ast.Call and ctx.in_traced and type(value.func) is ast.Call:  # type: ignore[attr-defined]
            # `y = nn.Dense(4)(x)`: a layer built and applied to traced values returns traced values.
            # (Other unknown calls are not assumed traced: `n, shape = self._shapes(x)` is common.)
            traced = any(ctx.is_traced(a) for a in value.args)  # type: ignore[attr-defined]
        # Certainly an array (for in-place update checks): made by jnp/lax/random, or arithmetic or a
        # method on a traced value. A subscript or copy of a traced argument may be a list slot.
        t = type(value)
        if t is ast.Call:
            q = ctx.resolve(value.func) or ""  # type: ignore[attr-defined]
            array = not container_call(q, value) and (q.startswith(("jax.numpy.", "jax.random.", "jax.lax.")) or (
                traced and isinstance(value.func, ast.Attribute)))  # type: ignore[attr-defined]
        else:
            array = traced and t in (ast.BinOp, ast.UnaryOp)
        return traced, mask, array, must

    def _any_must(self) -> bool:
        """Does some enclosing frame hold a must-abstract name (else no value here can be one)?"""
        return any(f.must for f in self.ctx.frames)

    def _assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        kids = node.__dict__.get("_jc")  # children cached by the pre-pass
        for child in kids if kids is not None else children(node):
            self.visit(child)
        if node.value is not None:
            vf = self._value_facts(node.value)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            items = self.ctx.container_items(node.value) if type(node.value) is ast.Call and container_call(
                self.ctx.resolve(node.value.func), node.value) else None  # type: ignore[arg-type]
            for t in targets:
                if items is not None and type(t) in (ast.Tuple, ast.List):  # `w, v = jnp.linalg.eigh(x)`: its arrays
                    self._bind(t, items[0], False, items[0], items[1])
                else:
                    self._bind(t, *vf)
            ctx = self.ctx
            cls = pytrees.replaced(ctx, node.value) if ctx.in_traced else None
            if cls is not None:  # `state = state.replace(x=...)`: the same pytree class, new leaves
                for t in targets:
                    if type(t) is ast.Name:
                        ctx.frame.pytrees.add(t.id)
                        ctx.frame.classes[t.id] = cls
            elif ctx.in_traced and type(node.value) is ast.Call:
                for t in targets:  # `state = step_agent(state, a)` with `-> EnvState`: what it returns
                    pytrees.bind_returned(ctx, t, node.value)
            if ctx.in_traced and type(node.value) is ast.Call and container_call(ctx.resolve(node.value.func), node.value):
                ctx.frame.pytrees.update(t.id for t in targets if type(t) is ast.Name)  # a list of tracers
            elif ctx.in_traced and type(node.value) is ast.Name and node.value.id in ctx.frame.pytrees:
                for t in targets:  # `sigma, cache, key = carry`: each element a traced leaf (or a container)
                    if type(t) in (ast.Tuple, ast.List):
                        names = [e.id for e in t.elts if type(e) is ast.Name]  # type: ignore[attr-defined]
                        ctx.frame.traced_names.update(names)
                        ctx.frame.elements.update(names)
            elif ctx.in_traced and ctx.observed and type(node.value) is ast.Name:
                for t in targets:  # `x, n = state` where a run saw `state[0]` abstract
                    evidence.bind_unpacked(ctx, t, node.value)
            if _is_container(self.ctx, node.value):
                self.ctx.frame.containers.update(t.id for t in targets if isinstance(t, ast.Name))

    def _augassign(self, node: ast.AugAssign) -> None:
        for child in children(node):
            self.visit(child)
        if isinstance(node.target, ast.Name):
            ctx = self.ctx
            traced = ctx.is_traced(node.target) or ctx.is_traced(node.value)
            f = ctx.frame
            f.bound.add(node.target.id)
            if traced:
                f.traced_names.add(node.target.id)
                f.arrays.add(node.target.id)
                if ctx.is_must(node.value):
                    f.must.add(node.target.id)

    def _namedexpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self._bind(node.target, *self._value_facts(node.value))

    def _bind_loop(self, target: ast.AST, it: ast.AST) -> None:
        """Bind a loop target: only ``range`` is static; ``enumerate(t)`` binds its second element
        and ``zip(a, b)`` each element like its iterable; other iterables bind like themselves."""
        ctx = self.ctx
        q = ctx.resolve(it.func) if isinstance(it, ast.Call) else None
        if q == "range":
            self._bind(target, False)
            return
        if q == "enumerate" and it.args and not it.keywords:  # type: ignore[attr-defined]
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
                self._bind(target.elts[0], False)
                self._bind_loop(target.elts[1], it.args[0])  # type: ignore[attr-defined]
            else:
                self._bind(target, False)
            return
        if q == "zip" and it.args:  # type: ignore[attr-defined]
            args = it.args  # type: ignore[attr-defined]
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(args) \
                    and not any(isinstance(a, ast.Starred) for a in args):
                for e, a in zip(target.elts, args, strict=True):
                    self._bind_loop(e, a)
            else:
                self._bind(target, False)
            return
        if q == "reversed" and it.args:  # type: ignore[attr-defined]
            self._bind_loop(target, it.args[0])  # type: ignore[attr-defined]
            return
        if type(it) is ast.Call and container_call(ctx.resolve(it.func), it):  # type: ignore[attr-defined]
            traced, must = ctx.container_items(it)  # type: ignore[arg-type]  # a tuple or list of arrays
            self._bind(target, traced, False, traced, must)
            return
        traced = ctx.is_traced(it) or (type(it) is ast.Name and it.id in ctx.frame.pytrees)  # type: ignore[attr-defined]
        self._bind(target, traced, False, traced, traced and ctx.is_must(it))

    @contextlib.contextmanager
    def _in_loop(self) -> Iterator[None]:
        """Everything visited inside runs once per iteration (rules ask ``ctx.in_loop``)."""
        f = self.ctx.frame
        f.loop_depth += 1
        try:
            yield
        finally:
            f.loop_depth -= 1

    def _for(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self._bind_loop(node.target, node.iter)
        with self._in_loop():
            self.visit_all(node.body)
        self.visit_all(node.orelse)

    def _while(self, node: ast.While) -> None:
        self.visit(node.test)
        with self._in_loop():
            self.visit_all(node.body)
        self.visit_all(node.orelse)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        for gen in node.generators:
            self.visit(gen.iter)
            self._bind_loop(gen.target, gen.iter)
            self.visit_all(gen.ifs)
        with self._in_loop():
            if isinstance(node, ast.DictComp):
                self.visit(node.key)
                self.visit(node.value)
            else:
                self.visit(node.elt)

    def _global(self, node: ast.Global | ast.Nonlocal) -> None:
        f = self.ctx.frame
        if isinstance(node, ast.Global):
            f.declared_global.update(node.names)
        else:
            f.declared_nonlocal.update(node.names)

    def _handler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.ctx.frame.bound.add(node.name)
        for child in children(node):
            self.visit(child)

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind(item.optional_vars, False)
        evaluated = self.ctx.in_traced and guards.compile_time_eval(self.ctx, node)
        f = self.ctx.frame
        f.compile_time_eval += evaluated
        try:
            self.visit_all(node.body)
        finally:
            f.compile_time_eval -= evaluated

    def _if(self, node: ast.If) -> None:
        """An ``if`` that tells tracers from concrete values runs one branch only on concrete values."""
        ctx = self.ctx
        self.visit(node.test)
        dead = guards.dead_branch(ctx, node.test) if ctx.in_traced else None
        if dead is not None:  # `if S is None:` where every traced way passes S: that branch never runs traced
            self.visit_all(node.orelse if dead else node.body)
            return
        true, false = guards.concrete_facts(ctx, node.test) if ctx.in_traced else guards.NO_FACTS
        if true or false:  # `isinstance(x, np.ndarray)`: that branch runs only on a concrete `x`
            guards.visit_two_sided(self, node, true, false)
            return
        box = guards.container_guard(ctx, node.test) if ctx.in_traced else None
        if box is not None:  # `if isinstance(xs, (tuple, list)):` runs that branch on a container of tracers
            names, container_if_true = box
            plain, boxed = (node.orelse, node.body) if container_if_true else (node.body, node.orelse)
            self._narrowed(plain, boxed, lambda: guards.as_container(ctx, names), guards.unbox)
            return
        branches.visit_if_else(self, node.body, node.orelse)  # one branch runs; one that returns ends its bindings

    def _narrowed(self, plain: list[ast.stmt], narrowed: list[ast.stmt], narrow, undo) -> None:
        """Visit ``plain``, then ``narrowed`` with what ``narrow()`` changes; after the ``if`` either branch may
        have run, so ``undo`` restores it unless ``plain`` always leaves the block."""
        def run_narrowed() -> None:
            saved = narrow()
            try:
                self.visit_all(narrowed)
            finally:
                if not guards.leaves(plain):
                    undo(saved)

        if plain and narrowed:  # one of the two runs: the second does not see the first's bindings
            branches.alternatives(self, plain, narrowed, lambda: self.visit_all(plain), run_narrowed)
        else:
            self.visit_all(plain)
            run_narrowed()

_SHARED: dict[tuple[type, ...], tuple[dict, _CallTable, tuple[type, ...], tuple]] = {}


def _shared(classes: tuple[type, ...]) -> tuple[dict, _CallTable, tuple[type, ...], tuple]:
    """For a visitor's rule classes: node type -> (classes checked only in traced code, classes checked
    everywhere), filled as types are met; the call table over the classes (``calls`` and ``nodes`` are class
    attributes, ``Rule``'s contract), its matches kept for every file."""
    if len(set(classes)) < len(classes):  # one class twice: instances cannot be told apart by class
        raise ValueError("a visitor's rules must be of distinct classes")
    out = _SHARED[classes] = ({}, _CallTable([c for c in classes if ast.Call in c.nodes]), classes,
                              tuple((c, c.nodes, c.calls, c.traced_only) for c in classes))
    return out


class _CallTable:
    """Call rules indexed by their ``calls`` patterns: exact names, name prefixes, method names.

    Built over rule classes (``_shared``): ``matching`` gives the classes whose patterns match a callee."""

    def __init__(self, rules: list) -> None:
        self.rules = rules
        self.always: tuple[type, ...] = tuple(r for r in rules if r.calls is None)
        self.exact: dict[str, tuple[type, ...]] = {}
        self.attrs: dict[str, tuple[type, ...]] = {}
        self.prefixes: list[tuple[str, type]] = []
        self.memo: dict[tuple[str | None, str | None], tuple[type, ...]] = {}  # (callee, method) -> rules
        for r in rules:
            for pattern in r.calls or ():
                if pattern.startswith("."):
                    self.attrs[pattern[1:]] = self.attrs.get(pattern[1:], ()) + (r,)
                elif pattern.endswith("*"):
                    self.prefixes.append((pattern[:-1], r))
                else:
                    self.exact[pattern] = self.exact.get(pattern, ()) + (r,)

    def matching(self, ctx: Context, node: ast.Call) -> tuple[type, ...]:
        func = node.func
        q = ctx.resolve(func)
        key = (q, func.attr if type(func) is ast.Attribute else None)
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) > 200_000:  # kept across files: bounded for a process that lints a great many
                self.memo.clear()
            found = self.memo[key] = self._match(q, func)
        return found

    def _match(self, q: str | None, func: ast.AST) -> tuple[type, ...]:
        found = self.always
        if q is not None:
            hit = self.exact.get(q)
            if hit:
                found = found + hit
            for prefix, r in self.prefixes:
                if q.startswith(prefix):
                    found = found + (r,)
        if type(func) is ast.Attribute:
            hit = self.attrs.get(func.attr)
            if hit:
                found = found + hit
        if len(found) > 1 and len(set(found)) < len(found):  # a rule matched by two patterns runs once
            found = tuple(dict.fromkeys(found))
        return found


_LEAF = object()
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Import, ast.ImportFrom,
                     ast.alias})
_SPECIAL = {
    ast.FunctionDef: _Visitor._function,
    ast.AsyncFunctionDef: _Visitor._function,
    ast.Lambda: _Visitor._function,
    ast.ClassDef: _Visitor._class,
    ast.Assign: _Visitor._assign,
    ast.AnnAssign: _Visitor._assign,
    ast.AugAssign: _Visitor._augassign,
    ast.NamedExpr: _Visitor._namedexpr,
    ast.For: _Visitor._for,
    ast.AsyncFor: _Visitor._for,
    ast.While: _Visitor._while,
    ast.ListComp: _Visitor._comprehension,
    ast.SetComp: _Visitor._comprehension,
    ast.GeneratorExp: _Visitor._comprehension,
    ast.DictComp: _Visitor._comprehension,
    ast.Global: _Visitor._global,
    ast.Nonlocal: _Visitor._global,
    ast.ExceptHandler: _Visitor._handler,
    ast.With: _Visitor._with,
    ast.If: _Visitor._if,
    ast.BoolOp: guards.visit_boolop,
    ast.IfExp: guards.visit_ifexp,
    ast.Assert: guards.visit_assert,
    ast.AsyncWith: _Visitor._with,
}


_CONTAINER_CALLS = frozenset({"list", "dict", "set", "collections.deque", "collections.defaultdict",
                              "collections.OrderedDict", "collections.Counter"})


def _is_container(ctx: Context, value: ast.AST) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and ctx.resolve(value.func) in _CONTAINER_CALLS


def _param_defaults(a: ast.arguments) -> dict[str, ast.expr]:
    positional = a.posonlyargs + a.args
    out = {p.arg: d for p, d in zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=False)}
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None})
    return out


def _captured_defaults(ctx: Context, node: ast.AST, outer: Frame) -> frozenset[str]:
    """The parameters of a closure whose default captures a value of the code that builds it, when that value
    is not traced there (docs/lint.md, "Defaults that capture").

    ``lambda key, s=shape: jax.random.normal(key, s)`` or ``def body(x, n=n):`` inside a function: Python
    evaluates the default once, where the closure is built, to freeze the value a late-binding closure would
    read later (in a loop: ``lambda x, i=i:``). Its callers call it without that argument (passing it would undo
    the capture), and jit traces only the arguments a call passes, so the parameter holds the captured value
    on every way: a Python value where that value is one. A lambda is written where it is used, so its
    defaults are such captures wherever it is; a def counts only nested in a function (a module-level def's
    defaults are its public interface, which callers may pass)."""
    a = node.args  # type: ignore[attr-defined]
    if not a.defaults and not any(a.kw_defaults):
        return frozenset()
    if not isinstance(node, ast.Lambda) and not isinstance(outer.node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                         ast.Lambda)):
        return frozenset()
    out = set()
    for p, d in _param_defaults(a).items():
        if isinstance(d, (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.BinOp)) and not ctx.is_traced(d) \
                and not any(isinstance(n, ast.Call) for n in ast.walk(d)):
            out.add(p)  # a name, a field, an item or arithmetic on them; a call's result may be an array
    return frozenset(out)


def _static_default(d: ast.expr | None) -> bool:
    """``None``/``True``/``"str"``, or a tuple of constants (``broadcast_dims=()``, ``shape=(1,)``): configuration."""
    if isinstance(d, ast.Tuple):
        return all(isinstance(e, ast.Constant) for e in d.elts)
    return isinstance(d, ast.Constant) and (d.value is None or isinstance(d.value, (bool, str)))


# Flax module methods: `model.apply` traces them, but only the first input is an array by convention;
# the other parameters (`train`, `deterministic`, `decode`) are Python configuration values.
FLAX_METHODS = frozenset({"flax.linen.compact", "flax.linen.module.compact"})


def _array_annotation(ann: ast.expr | None) -> bool:
    if ann is None:
        return False
    text = ast.unparse(ann)
    return any(k in text for k in ("Array", "ndarray", "Float[", "Int[", "Bool[", "Shaped["))


def _traced_call_args(ctx: Context, call: ast.Call) -> list[ast.AST]:
    """Arguments of ``call`` that JAX traces as functions (lambdas passed to jit, scan, cond ...)."""
    q = ctx.resolve(call.func) or ""
    if q in TRACES:
        return call.args[:1]
    if q in BODY_ARGS:
        positions, keywords = BODY_ARGS[q]
        out: list[ast.AST] = [call.args[i] for i in positions if i < len(call.args)]
        out += [k.value for k in call.keywords if k.arg in keywords]
        flat: list[ast.AST] = []
        for a in out:
            flat.extend(a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])
        return flat
    return []
