"""A compile's jit call as values a warm-up can rebuild, checked while the call's objects are alive (issue #26).

What JAX keys its in-memory caches on is the function object it jitted and the call's arguments: their
tree structure (node types and aux data), each array leaf's shape, dtype, weak type and committed device,
and the static arguments by hash and equality. A warm-up that rebuilds exactly those and lowers them on the
same jitted object fills the caches the program's own calls then hit. So the record is taken at the
``jax.jit`` call itself (after a wrapper such as ``equinox.filter_jit`` or ``flax.nnx.jit`` has turned the
user's arguments into its own), never from the user's view of it:

* the jitted object: the ``jax.jit`` object whose ``__wrapped__`` is the function JAX traced, found as a
  module global or an attribute of one (``train_step._cached``: equinox's inner jit; ``train_step.jitted_fn``:
  nnx's), in the modules of the function and of the user's function behind the wrapper;
* each argument: a pytree (``('tree', treedef, leaves)``: node types by module and qualified name, aux
  data as values, array leaves as shape/dtype specs) or, when static, the value itself;
* a value: a literal, a container of values, a ``PyTreeDef``, a namedtuple, an object compared by value by
  its attributes (a frozen dataclass's fields; ``_warmup_runtime.value_class``), or an object read by name
  from its module (a class, a function, a singleton), found by identity.

Every record is rebuilt at once with the warm-up's own runtime (``_warmup_runtime.rebuild``) and compared
with the original (treedefs equal; static values of the same type, equal and with the same hash); one that
does not come back equal is not kept, and ``why`` says what could not be rebuilt. Nothing here changes
what JAX does: it reads the arguments and builds treedefs and values beside them, on compiles only.

The record is one compact JSON text (``CompileEvent.rebuild``): value records as lists, literals as their ``repr``
(read back with ``ast.literal_eval`` by ``analyze/warmup_plan.py``, which checks every field again: a run is
a file anyone can edit).
"""

from __future__ import annotations

import ast
import enum
import math
import sys
from dataclasses import fields, is_dataclass
from typing import Any

from .. import _jaxcompat as compat
from ..jaxmodel.known import call_context
from ..model import LeafSpec
from .watch_signature import _param_names as param_names


def runtime() -> Any:
    """The warm-up's runtime (``_warmup_runtime``), imported when first needed: it imports JAX, and
    ``import jitscope`` must not (``JITSCOPE=watch`` attaches when the program imports JAX)."""
    from .. import _warmup_runtime

    return _warmup_runtime


_ATOMS = (type(None), bool, int, float, complex, str, bytes)
_BUILTIN_HOMES = ("builtins", "types", "collections")
MAX_NODES = 20_000  # records larger than this are not kept (a run file must stay readable)


class NotRebuildable(Exception):
    """Why a call cannot be rebuilt (one line, shown to the user)."""


class _Budget:
    """What one call's record may still spend (nodes), and the program's own module globals by identity:
    an object the program holds by name (``OPTIMISER = optax.adamw(...)``) is recorded as that name."""

    def __init__(self, modules: list[str]) -> None:
        self.left = MAX_NODES
        self.named: dict[int, tuple[str, str]] = {}
        for name in modules:
            mod = sys.modules.get(name)
            for key, value in list(vars(mod).items()) if mod is not None else ():
                if isinstance(key, str) and key.isidentifier() and not key.startswith("__"):
                    self.named.setdefault(id(value), (name, key))

    def spend(self, what: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise NotRebuildable(f"{what}: larger than {MAX_NODES} nodes and values")

    def name_of(self, v: Any) -> list | None:
        hit = self.named.get(id(v))
        if hit is not None and getattr(sys.modules.get(hit[0]), hit[1], None) is v:
            return ["ref", hit[0], hit[1], 0]
        return None


def as_text(record: dict[str, Any]) -> str:
    """A record as ``CompileEvent.rebuild`` holds it: one compact JSON text."""
    import json

    return json.dumps(record, separators=(",", ":"), allow_nan=False)


def describe_call(fun: Any, static_argnums: tuple[int, ...], static_argnames: tuple[str, ...], args: tuple,
                  kwargs: dict[str, Any], modules: tuple[str | None, ...] = ()) -> str:
    """The rebuild record of one jit call as JSON text (``as_text``): ``{"module", "path", "file", "args",
    "kwargs"}``, or ``{"why": ...}`` (with ``module``/``path`` when the jitted object was found) when it
    cannot be rebuilt exactly."""
    return as_text(_describe(fun, static_argnums, static_argnames, args, kwargs, modules))


def _describe(fun: Any, static_argnums: tuple[int, ...], static_argnames: tuple[str, ...], args: tuple,
              kwargs: dict[str, Any], modules: tuple[str | None, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        module, path = find_jitted(fun, modules)
        out.update(module=module, path=list(path), file=getattr(sys.modules.get(module), "__file__", None))
        context = _context(module, path)
        if context:
            out["context"] = context
        budget = _Budget(list(dict.fromkeys(m for m in (module, *modules) if isinstance(m, str))))
        static_pos = {i + len(args) if i < 0 else i for i in static_argnums}
        names = param_names(fun, len(args))
        out["args"] = [_argument(f"argument {names[i]}", a, i in static_pos, budget) for i, a in enumerate(args)]
        out["kwargs"] = {str(k): _argument(f"argument {k}", v, k in static_argnames, budget)
                         for k, v in kwargs.items()}
        return out
    except NotRebuildable as why:
        return {**{k: v for k, v in out.items() if k in ("module", "path", "file")}, "why": str(why)}
    except RecursionError:
        return {"why": "an argument nested too deeply to record"}


def find_jitted(fun: Any, modules: tuple[str | None, ...] = ()) -> tuple[str, tuple[str, ...]]:
    """``(module, attribute path)`` of the ``jax.jit`` object that jitted ``fun``: a module global, or an
    attribute of one (an instance's or a class's)."""
    import jax

    names = [getattr(fun, "__module__", None), *modules]
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or name in seen or name not in sys.modules:
            continue
        seen.add(name)
        mod = sys.modules[name]
        for key, value in list(vars(mod).items()):
            if _wraps(value, fun, jax):
                return name, (key,)
        for key, value in list(vars(mod).items()):
            inner = _attributes(value)
            for attr, a in inner:
                if _wraps(a, fun, jax):
                    return name, (key, attr)
    raise NotRebuildable("no module-level object holds its jitted function (created inside a function, "
                         "or a lambda/closure jitted at the call): the warm-up imports what it compiles by name")


def _context(module: str, path: tuple[str, ...]) -> str | None:
    """The library context the wrapper at ``path[:-1]`` calls its jit in (``jaxmodel``: nnx.jit's), or None."""
    if len(path) < 2:
        return None
    parent = getattr(sys.modules[module], path[0], None)
    cls = type(parent)
    found = call_context(f"{cls.__module__}.{cls.__qualname__}", path[-1])
    return found.context if found is not None else None


def _wraps(obj: Any, fun: Any, jax: Any) -> bool:
    try:
        return getattr(obj, "__wrapped__", None) is fun and isinstance(obj, jax.stages.Wrapped)
    except Exception:  # noqa: BLE001 - a module global with a broken __getattr__ is not ours
        return False


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """An object's own attributes (instance ``__dict__``, or a class's), never a module's."""
    import types

    if isinstance(obj, types.ModuleType):
        return []
    try:
        d = vars(obj)
    except TypeError:
        return []
    try:
        return [(k, v) for k, v in list(d.items()) if isinstance(k, str) and k.isidentifier()]
    except Exception:  # noqa: BLE001 - a mapping proxy that cannot be listed
        return []


def _argument(what: str, value: Any, static: bool, budget: _Budget) -> list:
    if static:
        record = _value(value, budget, what)
        try:
            again = runtime().rebuild(_as_runtime(record), main=sys.modules.get("__main__"))
        except Exception as e:  # noqa: BLE001 - what did not resolve is the reason
            raise NotRebuildable(f"{what} (static) does not rebuild: {type(e).__name__}: {_short(str(e))}") from None
        if not (type(again) is type(value) and _equal(again, value)):
            raise NotRebuildable(f"{what} (static, a {type(value).__qualname__}) does not rebuild equal: it is "
                                 "compared by identity or holds something that is")
        return record
    import jax

    leaves, tree = jax.tree_util.tree_flatten(value)
    specs = [_leaf(what, leaf) for leaf in leaves]
    t = _treedef(tree, budget, what)
    try:
        again = runtime().treedef(_as_runtime_tree(t), main=sys.modules.get("__main__"))
    except Exception as e:  # noqa: BLE001
        raise NotRebuildable(f"{what}: its tree structure does not rebuild: {type(e).__name__}: {_short(str(e))}") \
            from None
    if again != tree:
        raise NotRebuildable(f"{what}: its tree structure does not rebuild equal (a node's aux data is compared "
                             "by identity)")
    return ["tree", t, specs]


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and hash(a) == hash(b)
    except Exception:  # noqa: BLE001 - unhashable or a failing __eq__: not the same static value
        return False


def _leaf(what: str, leaf: Any) -> list:
    import jax
    import numpy as np

    if isinstance(leaf, jax.core.Tracer):
        raise NotRebuildable("compiled under a transformation (grad, vmap, ...): its arguments are tracers")
    if not isinstance(leaf, (jax.Array, np.ndarray, np.generic, bool, int, float, complex)):
        raise NotRebuildable(f"{what} has a leaf of type {type(leaf).__qualname__}, not an array")
    spec = LeafSpec.of("", leaf)
    dtype = spec.dtype
    if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        dtype = f"key:{jax.random.key_impl(leaf)}"
    device = memory_kind = None
    if spec.sharding is not None:
        sharding = leaf.sharding
        if not isinstance(sharding, jax.sharding.SingleDeviceSharding):
            raise NotRebuildable(f"{what} has an array committed with {type(sharding).__name__}: only one-device "
                                 "shardings are rebuilt")
        device = next(iter(sharding.device_set)).id
        memory_kind = sharding.memory_kind
    return ["array", list(spec.shape), dtype, bool(spec.weak_type), device, memory_kind]


def _treedef(tree: Any, budget: _Budget, what: str) -> list | None:
    budget.spend(what)
    data = tree.node_data()
    if data is None:
        return None
    typ, aux = data
    layout = compat.treedef_node_layout(tree)  # JAX 0.6: a registered dataclass node says so
    return [_ref(typ, what), _value(aux, budget, f"{what}: aux data of {getattr(typ, '__qualname__', typ)}"),
            [_treedef(c, budget, what) for c in tree.children()]] + ([layout] if layout else [])


def _value(v: Any, budget: _Budget, what: str) -> list:
    """A static value or aux datum as a record (JSON form)."""
    import jax

    budget.spend(what)
    t = type(v)
    if t in _ATOMS:
        if (t is float and not math.isfinite(v)) or (t is complex and not (math.isfinite(v.real) and
                                                                            math.isfinite(v.imag))):
            raise NotRebuildable(f"{what}: {v!r} is not a literal")
        text = repr(v)
        if len(text) > 100_000:
            raise NotRebuildable(f"{what}: a literal too long to record")
        return ["literal", text]
    if t in (tuple, list, frozenset):
        return [t.__name__, [_value(x, budget, what) for x in v]]
    if t is dict:
        return ["dict", [[_value(k, budget, what), _value(x, budget, what)] for k, x in v.items()]]
    if isinstance(v, jax.tree_util.PyTreeDef):
        return ["treedef", _treedef(v, budget, what)]
    named = budget.name_of(v)
    if named is not None:
        return named
    if isinstance(v, tuple) and hasattr(t, "_fields"):
        return ["namedtuple", _ref(t, what), [_value(x, budget, what) for x in v]]
    if not isinstance(v, type) and not callable(v):
        try:
            return _ref(v, what)  # a singleton read by name keeps its identity
        except NotRebuildable:
            if not runtime().value_class(t):
                raise NotRebuildable(f"{what}: a {t.__qualname__} compared by identity (it has no __eq__ and "
                                     "__hash__ of its own, or a __del__), not reachable by name: no rebuilt "
                                     "object is the program's") from None
        return ["object", _ref(t, what), [[k, _value(x, budget, what)] for k, x in _state(v, what)]]
    return _ref(v, what)


def _state(v: Any, what: str) -> list[tuple[str, Any]]:
    """An object's attributes: a dataclass's fields, else its instance dictionary (slots are not read)."""
    if is_dataclass(v):
        return [(f.name, getattr(v, f.name)) for f in fields(v)]
    try:
        state = vars(v)
    except TypeError:
        raise NotRebuildable(f"{what}: a {type(v).__qualname__} with no instance dictionary") from None
    if not all(isinstance(k, str) and k.isidentifier() for k in state):
        raise NotRebuildable(f"{what}: a {type(v).__qualname__} with attributes that are not names")
    return list(state.items())


def _ref(v: Any, what: str) -> list:
    """``['ref', module, qualname, unwrap]`` for an object read by name, found by identity."""
    module, qualname = getattr(v, "__module__", None), getattr(v, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and module in sys.modules:
        found = _resolve_to(v, module, qualname)
        if found is not None:
            return found
    if isinstance(v, enum.Enum):
        found = _resolve_to(v, type(v).__module__, f"{type(v).__qualname__}.{v.name}")
        if found is not None:
            return found
    homes = [module, getattr(type(v), "__module__", None), *(_BUILTIN_HOMES if isinstance(v, type) else ())]
    for home in homes:
        mod = sys.modules.get(home) if isinstance(home, str) else None
        if mod is None:
            continue
        for key, value in list(vars(mod).items()):
            if value is v and isinstance(key, str) and key.isidentifier():
                return ["ref", home, key, 0]
    kind = "function" if callable(v) and not isinstance(v, type) else type(v).__qualname__
    name = qualname if isinstance(qualname, str) else ""
    local = " (a lambda or a function defined inside another)" if "<" in name else ""
    raise NotRebuildable(f"{what}: a {kind}{' ' + name if name else ''}{local} that is neither a literal nor "
                         "reachable by name from its module")


def _resolve_to(v: Any, module: str, qualname: str) -> list | None:
    parts = qualname.split(".")
    if not all(p.isidentifier() for p in parts) or not all(p.isidentifier() for p in module.split(".")):
        return None
    obj: Any = sys.modules.get(module)
    try:
        for p in parts:
            obj = getattr(obj, p)
        for unwrap in range(4):
            if obj is v:
                return ["ref", module, qualname, unwrap]
            obj = getattr(obj, "__wrapped__", None)
            if obj is None:
                return None
    except Exception:  # noqa: BLE001 - an attribute that raises: not found that way
        return None
    return None


# -- JSON form -> the runtime's tuple form (records made here, trusted; a run's are checked by the plan) --
def _as_runtime(record: list) -> tuple:
    kind = record[0]
    if kind == "literal":
        return ("literal", ast.literal_eval(record[1]))
    if kind == "array":
        return ("array", tuple(record[1]), *record[2:])
    if kind == "ref":
        return tuple(record)
    if kind in ("tuple", "list", "frozenset"):
        return (kind, tuple(_as_runtime(r) for r in record[1]))
    if kind == "dict":
        return ("dict", tuple((_as_runtime(k), _as_runtime(v)) for k, v in record[1]))
    if kind == "tree":
        return ("tree", _as_runtime_tree(record[1]), tuple(_as_runtime(r) for r in record[2]))
    if kind == "treedef":
        return ("treedef", _as_runtime_tree(record[1]))
    if kind == "namedtuple":
        return ("namedtuple", _as_runtime(record[1]), tuple(_as_runtime(r) for r in record[2]))
    if kind == "object":
        return ("object", _as_runtime(record[1]), tuple((n, _as_runtime(v)) for n, v in record[2]))
    raise ValueError(kind)


def _as_runtime_tree(t: list | None) -> tuple | None:
    if t is None:
        return None
    return (_as_runtime(t[0]), _as_runtime(t[1]), tuple(_as_runtime_tree(c) for c in t[2])) + tuple(t[3:])


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."
