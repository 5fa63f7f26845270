"""Record Python side effects that run while a function is traced (seed 002).

Under jit, the Python body runs only when JAX traces; the compiled function never runs it
again. So ``print``, ``logging``, appends to a global list and rebinding a global happen
once per trace, not once per call. This collector traces the function one more time (a
fresh wrapper, so JAX's trace cache cannot skip it) with ``sys.setprofile`` watching:

* C calls to builtin ``print`` and to mutating methods (``append``, ``extend``, ``update``,
  ...) of lists / dicts / sets reachable from the function's module globals and closures;
* Python calls into ``logging``'s ``Logger.debug/info/warning/error/exception/critical/log``;

clears JAX's caches first (so inner ``jax.jit`` helpers trace again too), and snapshots the
module globals before and after (new or rebound names, containers whose
size changed), and the items of watched containers that ``STORE_SUBSCR``/``DELETE_SUBSCR``
instructions in the reached code target (``cache["k"] = x`` on an existing key calls nothing and
changes no size: the item's identity does). Lines come from the calling frame, or for rebinding
and item stores from the ``STORE_GLOBAL``/``STORE_SUBSCR`` instructions. Python 3.11 has no
``sys.monitoring``, hence ``setprofile``; it slows this one extra trace, never the timed one.
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import io
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._pycode import code_objects, functions_reached

_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
             "discard", "popitem", "__setitem__", "__delitem__"}
_MAX_COPY = 100_000  # containers larger than this are compared by size only
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


@dataclass
class EffectEvent:
    """One side effect seen while tracing."""

    kind: str  # "print" | "logging" | "container" | "global"
    file: str
    line: int
    function: str
    detail: str  # the container / global name, the log method, what was printed


def _reached(fn: Any) -> list[types.FunctionType]:
    """``fn`` and the same-module helpers it calls."""

    return functions_reached(fn) if isinstance(fn, types.FunctionType) else []


def _modules_and_cells(funcs: list[types.FunctionType]
                       ) -> tuple[list[dict[str, Any]], dict[int, str], dict[str, Any]]:
    """Globals dicts of ``funcs``; id -> name of watched containers; closure name -> container."""
    dicts: list[dict[str, Any]] = []
    watched: dict[int, str] = {}
    cells: dict[str, Any] = {}
    for f in funcs:
        if not any(d is f.__globals__ for d in dicts):
            dicts.append(f.__globals__)
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=False):
            with contextlib.suppress(ValueError):
                if isinstance(cell.cell_contents, (list, dict, set)):
                    watched[id(cell.cell_contents)] = name
                    cells.setdefault(name, cell.cell_contents)
    for d in dicts:
        for name, value in d.items():
            if isinstance(value, (list, dict, set)) and not name.startswith("__"):
                watched[id(value)] = name
    return dicts, watched, cells


def _snapshot(dicts: list[dict[str, Any]]) -> list[dict[str, tuple[int, int | None]]]:
    return [{k: (id(v), len(v) if isinstance(v, (list, dict, set)) else None) for k, v in d.items()}
            for d in dicts]


_CONTAINER_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CLASSDEREF")


def _scan_code(funcs: list[types.FunctionType], names: set[str]
               ) -> tuple[dict[str, list[tuple]], dict[str, tuple[str, int, str]]]:
    """One ``dis`` pass over the reached code: subscript sites of ``names`` and global store sites.

    ``cache["k"] = x`` on an existing key is a plain bytecode store: no C call for setprofile to see
    and no size change. The subscript target starts where the container's load does (same line and
    column); the last load there is the container (``a.b["k"]`` ends in ``LOAD_ATTR``: skipped).
    Returns (name -> [(file, line, function, "name[...] = ..." | "del name[...]", constant key or
    _ANY_KEY)] for ``STORE_SUBSCR`` / ``DELETE_SUBSCR`` on a global or closure in ``names``,
    global name -> (file, line, function) of its first ``STORE_GLOBAL`` / ``STORE_NAME``).
    """

    sites: dict[str, list[tuple]] = {}
    stores: dict[str, tuple[str, int, str]] = {}
    seen: set[int] = set()
    for f in funcs:
        for c in code_objects(f.__code__):
            if id(c) in seen:
                continue
            seen.add(id(c))
            instrs = list(dis.get_instructions(c))
            for i, ins in enumerate(instrs):
                if ins.opname in ("STORE_GLOBAL", "STORE_NAME") and ins.argval not in stores:
                    line = getattr(getattr(ins, "positions", None), "lineno", None) or ins.starts_line or 0
                    stores[ins.argval] = (c.co_filename, line, c.co_qualname)
                    continue
                if ins.opname not in ("STORE_SUBSCR", "DELETE_SUBSCR") or ins.positions is None:
                    continue
                pos = ins.positions
                container = None
                for prev in reversed(instrs[:i]):
                    pp = prev.positions
                    if pp is None or pp.lineno != pos.lineno or pp.col_offset != pos.col_offset:
                        continue
                    if pp.end_col_offset is not None and pos.end_col_offset is not None \
                            and pp.end_col_offset >= pos.end_col_offset and pp.end_lineno == pos.end_lineno:
                        continue  # COPY/SWAP/BINARY_SUBSCR of an augmented assignment span the whole target
                    container = prev
                    break
                if container is None or container.opname not in _CONTAINER_LOADS or container.argval not in names:
                    continue
                name = container.argval
                detail = f"del {name}[...]" if ins.opname == "DELETE_SUBSCR" else f"{name}[...] = ..."
                key = instrs[i - 1].argval if instrs[i - 1].opname == "LOAD_CONST" else _ANY_KEY
                sites.setdefault(name, []).append((c.co_filename, pos.lineno or 0, c.co_qualname, detail, key))
    return sites, stores


_ANY_KEY = object()  # a subscript site whose key is computed at run time


def _sites_that_ran(before: list[Any], obj: Any, sites: list[tuple]) -> list[tuple]:
    """The sites whose effect shows: for a dict, a constant key must be one that changed."""
    if not _changed(before, obj):
        return []
    if not isinstance(obj, dict) or max(len(obj), len(before)) > _MAX_COPY:
        return sites
    old = dict(before)
    changed = {k for k in old.keys() | obj.keys() if k not in old or k not in obj or old[k] is not obj[k]}
    return [site for site in sites if site[4] is _ANY_KEY or _in(site[4], changed)]


def _in(key: Any, keys: set[Any]) -> bool:
    try:
        return key in keys
    except TypeError:  # an unhashable constant cannot be a dict key
        return False


def _contents(obj: Any) -> list[Any]:
    """A shallow copy (keeps the referenced objects alive, so identity comparison is sound)."""
    return list(obj.items()) if isinstance(obj, dict) else list(obj)


def _changed(before: list[Any], obj: Any) -> bool:
    if len(obj) != len(before):
        return True
    if len(obj) > _MAX_COPY:
        return False
    after = _contents(obj)
    if isinstance(obj, set):
        return False  # same size: an add() of a present item changes nothing
    if isinstance(obj, dict):
        return any(k1 is not k2 or v1 is not v2 for (k1, v1), (k2, v2) in zip(before, after, strict=True))
    return any(a is not b for a, b in zip(before, after, strict=True))


def trace_with_effects(fn: Callable[..., Any], args: tuple, kwargs: dict, *,
                       static_argnames: tuple[str, ...] = (),
                       static_argnums: tuple[int, ...] = ()) -> list[EffectEvent]:
    """Trace ``fn`` once more with side-effect watchers on; return the events seen.

    What the trace prints is swallowed (the first trace already captured it, see
    ``Stages.trace_stdout``). Exceptions from tracing propagate (the first trace already reported them).
    """
    import jax

    from .._jaxcompat import is_user_file as _is_user_file
    from .lowering import jit_fresh

    funcs = _reached(fn)
    dicts, watched, cells = _modules_and_cells(funcs)
    before = _snapshot(dicts)
    sites, stores = _scan_code(funcs, set(watched.values()))
    containers = {name: obj for d in dicts for name, obj in d.items() if name in sites and id(obj) in watched}
    for name, obj in cells.items():
        if name in sites:
            containers.setdefault(name, obj)
    contents_before = {name: _contents(obj) if len(obj) <= _MAX_COPY else [None] * len(obj)
                       for name, obj in containers.items()}
    events: list[EffectEvent] = []
    print_fn = builtins.print

    def profiler(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "c_call":
            caller = frame
            if not _is_user_file(caller.f_code.co_filename):
                return
            if arg is print_fn:
                events.append(EffectEvent("print", caller.f_code.co_filename, caller.f_lineno,
                                          caller.f_code.co_qualname, "print"))
            elif getattr(arg, "__name__", "") in _MUTATORS:
                target = getattr(arg, "__self__", None)
                if target is not None and id(target) in watched:
                    events.append(EffectEvent("container", caller.f_code.co_filename, caller.f_lineno,
                                              caller.f_code.co_qualname, f"{watched[id(target)]}.{arg.__name__}"))
        elif event == "call":
            code = frame.f_code
            if code.co_name in _LOG_METHODS and code.co_filename.endswith(("logging/__init__.py",
                                                                           "logging\\__init__.py")):
                caller = frame.f_back
                if caller is not None and _is_user_file(caller.f_code.co_filename):
                    events.append(EffectEvent("logging", caller.f_code.co_filename, caller.f_lineno,
                                              caller.f_code.co_qualname, f"logging {code.co_name}"))

    jitted = jit_fresh(fn, static_argnames, static_argnums)
    # Inner @jax.jit helpers keep their own trace caches: without this, a print inside a helper
    # that was traced before would not run again. Costs later calls in this process a retrace.
    jax.clear_caches()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        old = sys.getprofile()
        sys.setprofile(profiler)
        try:
            jitted.trace(*args, **kwargs)
        finally:
            sys.setprofile(old)
    after = _snapshot(dicts)
    seen_containers = {e.detail.split(".")[0] for e in events if e.kind == "container"}
    for name, copy in contents_before.items():
        ran = [] if name in seen_containers else _sites_that_ran(copy, containers[name], sites[name])
        if ran:
            seen_containers.add(name)
            events.extend(EffectEvent("container", *site[:4]) for site in ran)
    for snap_before, snap_after in zip(before, after, strict=True):
        for name, (ident, size) in snap_after.items():
            old_state = snap_before.get(name)
            if old_state is None or old_state[0] != ident:
                where = stores.get(name)
                if where:
                    events.append(EffectEvent("global", where[0], where[1], where[2], name))
            elif size != old_state[1] and name not in seen_containers:
                where = stores.get(name)
                events.append(EffectEvent("container", where[0] if where else "", where[1] if where else 0,
                                          where[2] if where else "", f"{name} (size {old_state[1]} -> {size})"))
    return events
