"""JS604 unhashable-static-instance."""

from __future__ import annotations

import ast

from ...jaxmodel import families, known
from ..context import Context
from ..rule import Rule
from ..scope import JIT_LIKE, decorator_spec
from ._scan import scope_bindings
from ._static_args import certain, message_via, static_arguments, unhashable, values_of

_DATACLASS = frozenset({"dataclasses.dataclass", "dataclass"})


class UnhashableStaticInstance(Rule):
    """An instance of a user-defined class that is unhashable, or hashes by identity, passed as a static argument.

    ## What it does
    Flags call sites of a jitted function (decorated, or ``g = jax.jit(f, ...)`` in the same
    module) that pass, for a parameter named in ``static_argnums``/``static_argnames``, an
    instance of a class defined in the same module (a constructor call ``Config(...)``, or a
    name bound once to one):

    - the class is **unhashable**: a ``@dataclass`` that is not ``frozen=True``,
      ``unsafe_hash=True`` or ``eq=False``, or a class that defines ``__eq__`` without
      ``__hash__`` (Python then sets ``__hash__ = None``). Error: the call always raises.
    - the class **hashes by identity** (no ``__eq__``, no ``__hash__``, no base classes; a
      plain class or a ``@dataclass(eq=False)``) and a *fresh* instance is built in the call,
      inside a loop or a function.
      Warning: every call is a cache miss.

    - the class **hashes its fields** (a ``@dataclass(frozen=True)`` or ``unsafe_hash=True``, a
      ``NamedTuple``: the hash of the tuple of its fields) and the construction gives a hashed field a
      list, dict, set or array (``Config(axes=[0, 1])``), or leaves it to ``default_factory=list``; a
      field with ``compare=False``/``hash=False`` is left out. Error: hashing it raises.

    - ``self`` declared static in a ``jax.jit`` decorating a method (``static_argnames=("self", ...)``,
      ``static_argnums=0``): jit hashes the instance on every call (flax's ``nn.jit`` lifts the module
      and is not flagged). An unhashable class (as above) is an
      error; a flax linen Module is a warning: it hashes by its fields while unbound, but not once bound
      (inside ``apply``/``init``, or after ``bind``), where the call raises.

    JS602 covers list, dict and set literals; this rule covers user-defined types.

    ## Why is this bad?
    jit keys its cache on the static arguments' hash and equality. An unhashable one raises
    ``ValueError: Non-hashable static arguments are not supported``. One that hashes by
    identity never equals the previous call's fresh instance, so jit traces and compiles
    again on every call, silently (trace counts checked under real ``jax.jit``).

    ## Example
    ```python
    @dataclass
    class Config:
        depth: int

    @partial(jax.jit, static_argnames="cfg")
    def run(x, cfg):
        return x * cfg.depth

    run(x, cfg=Config(3))
    ```

    ## Use instead
    ```python
    @dataclass(frozen=True)
    class Config:
        depth: int
    ```

    ## Fix safety
    No fix is offered: making a class frozen (or adding ``__hash__``) changes what every
    other user of the class may do with it.
    """

    code = "JS604"
    name = "unhashable-static-instance"
    message = "`{cls}` instance passed for static argument `{param}` of `{function}`: {why}"
    severity = "error"
    confidence = "certain"
    nodes = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    traced_only = False

    def check(self, node: ast.AST, ctx: Context) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._static_self(node, ctx)
            return
        call: ast.Call = node  # type: ignore[assignment]
        found = static_arguments(ctx, call)
        if found is None:
            return
        function, passed = found
        for param, value in passed:
            fresh = isinstance(value, ast.Call)
            ctor = value if fresh else _bound_instance(ctx, value)
            if ctor is None and isinstance(value, ast.Attribute):  # `self.cfg` set in __init__ to `Config(...)`
                ctors = [v for v in values_of(ctx, value) if v is not None]
                ctor = ctors[0] if len(ctors) == 1 else None
            if not isinstance(ctor, ast.Call) or not isinstance(ctor.func, ast.Name):
                continue
            cls = _module_class(ctx, ctor.func)
            if cls is None:
                continue
            kind = _hash_kind(ctx, cls)
            field = _unhashable_field(ctx, cls, ctor) if kind is None else None
            if field is not None:
                name, what, how = field
                why = (f"`{cls.name}` hashes its fields ({how}) and its field `{name}` is given {what} (line "
                       f"{ctor.lineno}), so hashing it raises 'Non-hashable static arguments'; use a tuple (or another "
                       "hashable value) for the field")
                details = dict(why=why, cls=cls.name, param=param, function=function)
                ctx.report(self, value, message_via(self, ctx, value, **details),
                           severity=None if certain(ctx, value) else "warning", **details)
            elif kind == "unhashable":
                why = (f"`{cls.name}` is unhashable ({_why_unhashable(ctx, cls)}), so the call raises "
                       "'Non-hashable static arguments'; make it `@dataclass(frozen=True)` or define `__hash__`")
                details = dict(why=why, cls=cls.name, param=param, function=function)
                ctx.report(self, value, message_via(self, ctx, value, **details),
                           severity=None if certain(ctx, value) else "warning", **details)
            elif kind == "identity" and fresh and (ctx.in_loop or len(ctx.frames) > 1) \
                    and not ctx.frame.name.startswith("test"):
                why = (f"`{cls.name}` hashes by identity and a new instance is built for every call, so every call "
                       "traces and compiles again; define `__eq__` and `__hash__` (or a frozen dataclass), or build "
                       "it once")
                details = dict(why=why, cls=cls.name, param=param, function=function)
                ctx.report(self, value, message_via(self, ctx, value, **details), severity="warning", **details)


    def _static_self(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context) -> None:
        """``self`` declared static in a jit decorating a method: jit hashes the instance on every call."""
        cls = ctx.parents[-1] if ctx.parents else None
        positional = fn.args.posonlyargs + fn.args.args
        if not isinstance(cls, ast.ClassDef) or not positional or positional[0].arg != "self":
            return
        for dec in fn.decorator_list:
            spec = decorator_spec(ctx.info, dec)
            if spec is None or spec.wrapper not in JIT_LIKE or "self" not in spec.static_params(fn):
                continue
            t = known.lookup(spec.wrapper)
            if t is None or t.family != "jax":
                return  # a lifted transform (`nn.jit`, `nnx.jit`) handles its module's `self` itself
            node = _static_entry(dec) or dec
            if _hash_kind(ctx, cls) == "unhashable":
                why = (f"`{cls.name}` is unhashable ({_why_unhashable(ctx, cls)}), so every call raises 'Non-hashable "
                       "static arguments'; make it hashable, or pass what the method needs as static arguments")
                details = dict(why=why, cls=cls.name, param="self", function=fn.name)
                ctx.report(self, node, **details)
            elif _derives(ctx, cls, families.UNHASHABLE_WHEN_BOUND):
                why = (f"`{cls.name}` is a flax linen Module, which cannot be hashed once bound (inside `apply`/`init`"
                       ", or after `bind`: it holds variables): called there it raises 'Non-hashable static arguments'; use `nn.jit`, or a function taking the "
                       "module's configuration as static arguments")
                details = dict(why=why, cls=cls.name, param="self", function=fn.name)
                ctx.report(self, node, severity="warning", confidence="likely", **details)
            return


def _static_entry(dec: ast.expr) -> ast.expr | None:
    """The ``"self"`` of a decorator's ``static_argnames`` (or the ``0`` of its ``static_argnums``), if written."""
    for k in dec.keywords if isinstance(dec, ast.Call) else ():
        for e in k.value.elts if isinstance(k.value, (ast.Tuple, ast.List)) else [k.value]:
            if isinstance(e, ast.Constant) and ((k.arg == "static_argnames" and e.value == "self")
                                                or (k.arg == "static_argnums" and e.value == 0)):
                return e
    return None


def _derives(ctx: Context, cls: ast.ClassDef, bases: frozenset[str], depth: int = 0) -> bool:
    """Does ``cls`` derive from one of ``bases`` (qualified names), directly or through classes of this module?"""
    for b in cls.bases:
        q = ctx.info.resolve(b) or ""
        if q in bases:
            return True
        local = _module_class(ctx, b) if isinstance(b, ast.Name) and depth < 8 else None
        if local is not None and local is not cls and _derives(ctx, local, bases, depth + 1):
            return True
    return False


def _bound_instance(ctx: Context, value: ast.expr) -> ast.expr | None:
    """The constructor call a plain name is bound to once (in this function, or at module level), if any."""
    if not isinstance(value, ast.Name):
        return None
    local = ctx._local_frame(value.id)
    if local is not None and local is not ctx.frame:
        return None
    scope = local.node if local is not None else ctx.tree
    if local is None and value.id in ctx.info.reassigned_in_functions:
        return None
    entries = scope_bindings(ctx, scope).get(value.id, [])
    if len(entries) != 1 or not entries[0][2]:
        return None  # bound more than once, or as part of a tuple / loop target
    return entries[0][1]  # type: ignore[return-value]


def _module_class(ctx: Context, name: ast.Name) -> ast.ClassDef | None:
    """The module-level class ``name`` refers to, when it is defined once and never rebound."""
    if ctx._local_frame(name.id) is not None or ctx.info.module_assign_count.get(name.id, 0):
        return None
    classes = [s for s in ctx.tree.body if isinstance(s, ast.ClassDef) and s.name == name.id]
    defs = [s for s in ctx.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name.id]
    return classes[0] if len(classes) == 1 and not defs else None


def _defines(cls: ast.ClassDef, attr: str) -> bool:
    for s in cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == attr:
            return True
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in s.targets):
            return True
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == attr:
            return True
    return False


def _dataclass_options(ctx: Context, cls: ast.ClassDef) -> dict[str, object] | None:
    """The keyword options of a stdlib ``@dataclass`` decorator, or None if the class is not one."""
    for dec in cls.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if ctx.info.resolve(target) in _DATACLASS:
            if isinstance(dec, ast.Call):
                opts: dict[str, object] = {}
                for k in dec.keywords:
                    if k.arg is None or not isinstance(k.value, ast.Constant):
                        return {"unknown": True}
                    opts[k.arg] = k.value.value
                return opts
            return {}
    return None


def _hash_kind(ctx: Context, cls: ast.ClassDef) -> str | None:
    """``"unhashable"``, ``"identity"`` or None (hashable by value, or not knowable here)."""
    if cls.keywords or _defines(cls, "__hash__"):
        return None  # a metaclass, or an explicit __hash__ (even `__hash__ = None` is deliberate)
    opts = _dataclass_options(ctx, cls)
    if any(ctx.info.resolve(d.func if isinstance(d, ast.Call) else d) not in _DATACLASS for d in cls.decorator_list):
        return None  # another decorator may add hashing
    if opts is not None:
        if "unknown" in opts:
            return None
        if opts.get("frozen") or opts.get("unsafe_hash"):
            return None
        if opts.get("eq", True) is False:
            return None if cls.bases or _defines(cls, "__eq__") else "identity"  # object's __eq__/__hash__
        return "unhashable"
    if _defines(cls, "__eq__"):
        return "unhashable"  # Python sets __hash__ = None on a class that defines __eq__ alone
    if cls.bases:
        return None  # a base may define __eq__/__hash__
    return "identity"


_NAMEDTUPLE = frozenset({"typing.NamedTuple", "NamedTuple"})
_MUTABLE_FACTORIES = {"list": "a list", "dict": "a dict", "set": "a set"}


def _hashes_fields(ctx: Context, cls: ast.ClassDef) -> str | None:
    """How ``cls`` hashes by the values of its fields (a frozen or ``unsafe_hash`` dataclass, a NamedTuple:
    ``hash`` of the tuple of its fields), or None (by identity, its own ``__hash__``, or not knowable here)."""
    if cls.keywords or _defines(cls, "__hash__"):
        return None
    if cls.bases:
        ok = len(cls.bases) == 1 and (ctx.info.resolve(cls.bases[0]) or "") in _NAMEDTUPLE and not cls.decorator_list
        return "a NamedTuple" if ok else None
    opts = _dataclass_options(ctx, cls)
    if opts is None or "unknown" in opts or len(cls.decorator_list) != 1 or opts.get("eq", True) is False:
        return None
    if opts.get("unsafe_hash"):
        return "an `unsafe_hash` dataclass"
    return "a frozen dataclass" if opts.get("frozen") else None


def _unhashable_field(ctx: Context, cls: ast.ClassDef, ctor: ast.Call) -> tuple[str, str, str] | None:
    """(field, what it is given, how the class hashes) when ``cls`` hashes by its fields and the construction
    ``ctor`` gives a hashed field a list, dict, set or array, or leaves one to a ``default_factory=list``."""
    how = _hashes_fields(ctx, cls)
    if how is None or any(isinstance(a, ast.Starred) for a in ctor.args) or any(k.arg is None for k in ctor.keywords):
        return None
    fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
              and "ClassVar" not in ast.unparse(s.annotation)]
    given = dict(zip((f.target.id for f in fields), ctor.args, strict=False))  # type: ignore[union-attr]
    given.update({k.arg: k.value for k in ctor.keywords if k.arg})
    for f in fields:
        name = f.target.id  # type: ignore[union-attr]
        options = {k.arg: k.value for k in f.value.keywords} if isinstance(f.value, ast.Call) else {}
        if any(isinstance(options.get(k), ast.Constant) and options[k].value is False for k in ("compare", "hash")):
            continue  # left out of __eq__/__hash__
        if name in given:
            what = unhashable(ctx, given[name])
        else:
            factory = options.get("default_factory")
            what = _MUTABLE_FACTORIES.get(factory.id) if isinstance(factory, ast.Name) else None
            what = what and f"{what} by its `default_factory`"
        if what:
            return name, what, how
    return None


def _why_unhashable(ctx: Context, cls: ast.ClassDef) -> str:
    if _dataclass_options(ctx, cls) is not None:
        return "a non-frozen dataclass"
    return "it defines `__eq__` without `__hash__`"
