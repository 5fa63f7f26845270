"""What a jitted call looked like: its argument signature, where the function was defined,
and where in the user's code it was called from.

Everything here runs only on a compile (never on a warm call), while the call's
arguments are still alive, and uses public APIs only (``jax.tree_util``, ``jax.dtypes``);
the user-code filter is jitscope's one ``_jaxcompat.is_user_file``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import sys
from types import FrameType, FunctionType, MethodType, ModuleType
from typing import Any

from .._jaxcompat import is_library_file, is_user_file
from ..model import FUNCTION_IDENTITY_MARK, IDENTITY_MARK, MEMBERS_IDENTITY_MARK, ArgSignature, LeafSpec, Location
from .object_state import state_digest
from .wrappers import is_wrapper_frame


def call_sites(frame: FrameType | None = None) -> tuple[Location | None, Location | None]:
    """(the program's call site, the library's) for the current stack.

    The program's call site is the innermost frame of the program's own code (``is_program_file``: not
    JAX, not jitscope, not an installed library or the standard library), past a library's jit plumbing
    (``equinox.filter_jit``, ``flax.nnx.jit``). The library's is the innermost frame of an installed
    library between it and JAX (where numpyro's ``svi.py`` or diffrax's ``_integrate.py`` jitted), or
    None when the program called JAX itself. With no program frame on the stack (a library compiling
    at import), the call site is the innermost library frame and the second item None.
    """
    f = frame or sys._getframe(1)
    library: Location | None = None
    wrapper: Location | None = None
    while f is not None:
        code = f.f_code
        if is_user_file(code.co_filename):
            here = Location(code.co_filename, f.f_lineno or code.co_firstlineno,
                            function=getattr(code, "co_qualname", code.co_name))
            if is_library_file(code.co_filename):
                library = library or here
            elif is_wrapper_frame(f):
                wrapper = wrapper or here
            else:
                return here, library
        f = f.f_back
    if wrapper is not None:
        return wrapper, library
    return library, None


def user_call_site(frame: FrameType | None = None) -> Location | None:
    """The innermost frame of the current stack in the program's own code (``call_sites``)."""
    return call_sites(frame or sys._getframe(1))[0]


def unwrap_function(fun: Any) -> Any:
    """The plain Python function under partials and ``functools.wraps`` layers."""
    for _ in range(20):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif getattr(fun, "__wrapped__", None) is not None:
            fun = fun.__wrapped__
        else:
            break
    return fun


def function_name(fun: Any) -> str:
    """The qualified name of a jitted function, as a user would write it."""
    f = unwrap_function(fun)
    return str(getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__)


def function_module(fun: Any) -> str | None:
    """The ``__module__`` of the plain function under a jitted one (``__main__`` for the running script)."""
    mod = getattr(unwrap_function(fun), "__module__", None)
    return mod if isinstance(mod, str) and mod else None


def definition_site(fun: Any) -> Location | None:
    """Where the jitted function was defined (its code object's file and first line)."""
    f = unwrap_function(fun)
    code = getattr(f, "__code__", None)
    if code is None:
        code = getattr(vars(type(f)).get("__call__"), "__code__", None)  # a callable object
    if code is None:
        return None
    return Location(code.co_filename, code.co_firstlineno, function=function_name(fun))


def is_user_function(fun: Any) -> bool:
    """A function the user jitted (not one JAX jits internally for an eager op or a jnp routine)."""
    f = unwrap_function(fun)
    if getattr(f, "_apply_primitive", False):
        return False
    loc = definition_site(fun)
    if loc is not None:
        return is_user_file(loc.file)
    mod = getattr(f, "__module__", "") or ""
    return not (mod.startswith("jax.") or mod.startswith("jaxlib") or mod == "jax")


def wrapped_user_function(fun: Any, depth: int = 3) -> tuple[Any, str] | None:
    """For a function defined inside JAX that wraps a user's function (``checkify.checkify(f)`` closes
    over ``f``; ``jax.jit`` then compiles a program built from the user's code), ``(f, wrapper)`` where
    ``wrapper`` names JAX's transformation by its module (``checkify``); None for JAX's own routines,
    whose user callables, if any, are arguments (``jnp.piecewise``), not what the function closes over."""
    f = unwrap_function(fun)
    code = getattr(f, "__code__", None)
    if code is None or is_user_function(fun):
        return None
    wrapper = os.path.basename(code.co_filename).removesuffix(".py").lstrip("_")
    for cell in getattr(f, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if not callable(value) or isinstance(value, type):
            continue
        if is_user_function(value):
            return value, wrapper
        if depth > 1 and (inner := wrapped_user_function(value, depth - 1)) is not None:
            return inner[0], wrapper
    return None


def static_repr(value: Any) -> str:
    """How a static argument is shown; objects hashed by identity say so (the analyzer reads it)."""
    t = type(value)
    # Hashing by identity matters only where two objects can be "the same" to the user: None, Ellipsis,
    # a class or a module is one object, so its identity is its value (``n: None -> 2`` is a value change).
    singleton = value is None or value is Ellipsis or value is NotImplemented or isinstance(value, (type, ModuleType))
    if isinstance(value, (FunctionType, functools.partial, MethodType)) and _identity_hashed(value):
        what = getattr(value, "__qualname__", None) or getattr(getattr(value, "func", None), "__qualname__", None) \
            or t.__qualname__
        return f"<function {what} object at {hex(id(value))}, {FUNCTION_IDENTITY_MARK}>"
    if t.__hash__ is object.__hash__ and t.__eq__ is object.__eq__ and not singleton:
        return f"<{t.__qualname__} object at {hex(id(value))}, {IDENTITY_MARK}>"
    members = identity_members(value)
    if members:
        # A tuple (an optax GradientTransformation NamedTuple) or frozen dataclass hashes and compares its
        # members: functions and other identity-hashed objects make the whole value identity-hashed in effect
        # (a rebuilt one holds new closures: a new cache key).
        shown = ", ".join(members[:4]) + (", ..." if len(members) > 4 else "")
        return f"<{t.__qualname__} object at {hex(id(value))} ({shown}), {MEMBERS_IDENTITY_MARK}>"
    try:
        r = repr(value)
    except Exception:  # a broken __repr__ must not break the user's program
        r = f"<{t.__qualname__}>"
    return r if len(r) <= 200 else r[:197] + "..."


def _identity_hashed(value: Any) -> bool:
    t = type(value)
    if isinstance(value, (type, ModuleType)) or value is None:
        return False
    if isinstance(value, MethodType):  # hash(self) ^ hash(function): identity when self's is
        return _identity_hashed(value.__self__) or _identity_hashed(value.__func__)
    return t.__hash__ is object.__hash__ and t.__eq__ is object.__eq__


def identity_members(value: Any, depth: int = 2) -> list[str]:
    """The members of a tuple (NamedTuple included) or frozen dataclass that hash and compare by identity
    (functions, closures, ``functools.partial``, bound methods of such objects, objects without
    ``__eq__``/``__hash__``), named as ``field=qualname``; nested tuples/dataclasses up to ``depth``. Empty
    when every member hashes by value: then the container does too."""
    if isinstance(value, tuple):
        fields = getattr(type(value), "_fields", None)
        items = list(zip(fields, value)) if isinstance(fields, tuple) and len(fields) == len(value) \
            else [(f"[{i}]", v) for i, v in enumerate(value)]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type) and type(value).__hash__ is not None \
            and type(value).__hash__ is not object.__hash__:
        items = [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value) if f.hash is not False
                 and f.compare]
    else:
        return []
    out: list[str] = []
    for name, v in items[:32]:
        if _identity_hashed(v):
            what = getattr(v, "__qualname__", None) or getattr(getattr(v, "func", None), "__qualname__", None) \
                or type(v).__qualname__
            out.append(f"{name}={what}")
        elif depth > 1:
            out.extend(f"{name}.{m}" for m in identity_members(v, depth - 1))
    return out


def _param_names(fun: Any, n: int) -> list[str]:
    names: list[str] = []
    try:
        for p in inspect.signature(fun).parameters.values():
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.append(p.name)
            elif p.kind is p.VAR_POSITIONAL:
                names.extend(f"{p.name}[{i}]" for i in range(n - len(names)))
                break
    except (TypeError, ValueError):
        pass
    return names + [f"arg{i}" for i in range(len(names), n)]


def transform_kind(args: tuple, kwargs: dict[str, Any]) -> str | None:
    """Which transformation a jitted call runs under: ``grad``, ``vmap``, ``jvp``, ..., or None.

    Named from the tracer classes of the arguments (sorted, joined by ``+`` when they differ);
    a grad and a vmap of the same function are different programs, each compiled once.
    """
    import jax

    from .._jaxcompat import transform_name

    kinds: set[str] = set()
    for leaf in jax.tree_util.tree_leaves((args, kwargs)):
        # Nested transformations (``vmap(grad(f))``): a tracer's primal or batched value is the outer
        # transformation's tracer.
        for _ in range(8):
            if not isinstance(leaf, jax.core.Tracer):
                break
            kinds.add(transform_name(leaf))
            leaf = getattr(leaf, "primal", None) if hasattr(leaf, "primal") else getattr(leaf, "val", None)
    return "+".join(sorted(kinds)) or None


def call_signature(fun: Any, static_argnums: tuple[int, ...], static_argnames: tuple[str, ...],
                   args: tuple, kwargs: dict[str, Any], arrays_only: bool = False,
                   bound: tuple[str, Any] | None = None, options: dict[str, str] | None = None) -> ArgSignature:
    """The signature jit keys its cache on, with argument names for paths (``x``, ``params['w']``).

    ``arrays_only``: only array leaves are traced, any other leaf is a static value named by its
    path (``equinox.filter_jit``: ``lr: 0.1``). ``bound``: the function's own pytree part, keyed on
    like an argument (``("self", module)``: ``self.act: 'tanh'``). ``options``: the jit options that
    key the cache besides the arguments (``donate_argnums``), kept as given.
    """
    import jax
    import numpy as np

    names = _param_names(fun, len(args))
    # jit also lists static_argnames as argnums; one passed by keyword points past the positional args.
    static_pos = {i + len(args) if i < 0 else i for i in static_argnums} & set(range(len(args)))
    leaves: list[LeafSpec] = []
    static: dict[str, str] = {}
    trees: list[str] = []
    nodes: dict[str, str] | None = {}

    def add(name: str, value: Any) -> None:
        flat, tree = jax.tree_util.tree_flatten_with_path(value)
        trees.append(f"{name}: {' '.join(str(tree).split())}")  # one line per argument (flax prints several)
        if nodes is not None:
            found = tree_nodes(name, value)
            if found is None:
                nodes.clear()
                return
            nodes.update(found)
        for path, leaf in flat:
            if arrays_only and not isinstance(leaf, (jax.Array, np.ndarray, np.generic)):
                if leaf is not None:
                    static[name + jax.tree_util.keystr(path)] = static_repr(leaf)
                continue
            leaves.append(LeafSpec.of(name + jax.tree_util.keystr(path), leaf))

    if bound is not None:
        add(*bound)
    for i, a in enumerate(args):
        if i in static_pos:
            static[names[i]] = static_repr(a)
        else:
            add(names[i], a)
    for k, v in kwargs.items():
        if k in static_argnames:
            static[k] = static_repr(v)
        else:
            add(k, v)
    return ArgSignature(tuple(leaves), static, "\n".join(trees), keywords=tuple(kwargs), options=dict(options or {}),
                        nodes=nodes or {})


MAX_TREE_NODES = 512  # beyond, a signature keeps only its treedef text (cost on the compile path)
_MAX_NODE_TEXT = 2000


def _node_data_text(aux: Any) -> str:
    text = " ".join(repr(aux).split())
    if len(text) > _MAX_NODE_TEXT:  # keep a digest so that a difference past the cut still shows
        import hashlib

        text = text[:_MAX_NODE_TEXT] + "...#" + hashlib.sha1(text.encode()).hexdigest()[:12]
    return text


def tree_nodes(name: str, value: Any, limit: int = MAX_TREE_NODES) -> dict[str, str] | None:
    """The pytree nodes of an argument, by path (``model``, ``model.states[0]``), outermost first:
    ``"dict[2] ['a', 'b']"``, the node's type, its number of children and its static data (a dict's
    keys, a module's static fields, flax's graph definition). Compared node by node (``analyze.reasons``)
    a structure change names the node that changed, however the treedef prints. None past ``limit``."""
    import jax

    out: dict[str, str] = {}
    todo: list[tuple[str, Any]] = [(name, value)]
    while todo:
        path, v = todo.pop()

        def one_level(c: Any, v: Any = v) -> bool:
            return c is not v

        data = jax.tree_util.tree_structure(v, is_leaf=one_level).node_data()
        if data is None:
            continue  # a leaf
        typ, aux = data
        if v is None:
            out[path] = "None"
            continue
        flat, _ = jax.tree_util.tree_flatten_with_path(v, is_leaf=one_level)
        text = f"{getattr(typ, '__qualname__', typ)}[{len(flat)}]"
        out[path] = text if aux is None else f"{text} {_node_data_text(aux)}"
        if len(out) > limit:
            return None
        todo.extend((path + jax.tree_util.keystr(k), c) for k, c in reversed(flat))
    return out


def _bound_value(value: Any) -> str:
    """How a bound value enters ``function_bindings``: an array by type only (it could be passed as an
    argument), a number or string by value (it may be a norm order or an axis, not a traced value), an
    object with no value equality by identity."""
    import numpy as np

    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "dtype") and not isinstance(value, type):
        return f"array {np.dtype(value.dtype).name}{list(shape)}"
    if value is None or isinstance(value, (bool, int, float, str, bytes, complex)):
        r = repr(value)
        return r if len(r) <= 80 else r[:77] + "..."
    if isinstance(value, (tuple, list, frozenset)) and len(value) <= 16:
        return type(value).__name__ + "(" + ", ".join(_bound_value(v) for v in value) + ")"
    if isinstance(value, type):  # a class by its name: a closure over P and one over Q bind different classes
        return f"<class {value.__qualname__} {IDENTITY_MARK} {id(value):x}>"
    state = state_digest(value)  # what it holds: two objects built alike are one object made twice
    return f"<{type(value).__qualname__} {IDENTITY_MARK} {id(value):x}{f' state={state}' if state else ''}>"


def function_bindings(fun: Any) -> str:
    """What a jitted function object carries besides its code: ``functools.partial`` arguments and
    closure values and the globals it reads, through ``functools.wraps`` layers and closed-over functions
    (``jax.jacfwd(partial(f, ord=2))``). Equal for two copies of one function rebuilt (a ``jax.jit(lambda ...)`` in a loop);
    different when they bind different values (one ``partial`` per test parameter)."""
    parts: list[str] = []
    seen: set[int] = set()

    def visit(obj: Any, depth: int) -> None:
        if depth > 6 or len(parts) > 64 or id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, functools.partial):
            args = [_bound_value(a) for a in obj.args]
            args += [f"{k}={_bound_value(v)}" for k, v in sorted(obj.keywords.items())]
            parts.append(f"partial({', '.join(args)})")
            visit(obj.func, depth + 1)
            return
        if inspect.ismethod(obj):
            parts.append(f"self={_bound_value(obj.__self__)}")
            visit(obj.__func__, depth + 1)
            return
        code = getattr(obj, "__code__", None)
        if code is not None:
            parts.append(f"{getattr(obj, '__qualname__', '?')}@{code.co_filename}:{code.co_firstlineno}")
            for cell in getattr(obj, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if callable(value) and (hasattr(value, "__code__") or isinstance(value, functools.partial)):
                    visit(value, depth + 1)
                else:
                    parts.append(_bound_value(value))
            # Globals it reads are bound at trace time too (a module-level loop variable in a lambda).
            namespace = getattr(obj, "__globals__", None) or {}
            for name in code.co_names:
                value = namespace.get(name, namespace)
                if value is namespace or inspect.ismodule(value) or isinstance(value, type) or callable(value):
                    continue
                parts.append(f"{name}={_bound_value(value)}")
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None:
            visit(wrapped, depth + 1)
        elif code is None:
            parts.append(_bound_value(obj))  # a callable object: by identity unless it has a value

    visit(fun, 0)
    return "; ".join(parts)
