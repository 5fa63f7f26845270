"""The full chain of the program's frames an exception JAX raised passed through.

``program_chain(exc)`` gives every frame of the program's own code (``_jaxcompat.is_program_file``: not JAX,
not an installed package, not the standard library, not jitscope) on the exception's way, outermost first:
the frames its traceback holds (the deepest traceback of its ``__cause__``/``__context__`` chain, where JAX
keeps the stack it filtered), then, outward from the traceback's first frame, the frames that called it (at
JAX's API boundary the exception has not yet reached them). Each is ``{"file", "line", "function",
"traced"}``; ``traced`` says that one of the frame's local values was a JAX tracer when the exception passed
(the frame ran under a transformation). Computed only when an exception is kept (never on a call that does
not raise); reading a frame never changes it.
"""

from __future__ import annotations

import re
import sys
from types import FrameType
from typing import Any

from .. import _jaxcompat as compat

MAX_FRAMES = 24  # the innermost program frames kept (a deep recursion says nothing more)


def _tracer_type() -> Any:
    core = sys.modules.get("jax.core")
    return getattr(core, "Tracer", None) if core is not None else None


def _holds_tracer(frame: FrameType, tracer: Any) -> bool:
    if tracer is None:
        return False
    try:
        values = list(frame.f_locals.values())
    except Exception:  # noqa: BLE001 - a frame whose locals cannot be read says nothing
        return False
    return any(isinstance(v, tracer) for v in values)


def _traceback(exc: BaseException) -> list[tuple[FrameType, int]]:
    """(frame, line) of the traceback in the exception's chain with the most program frames."""
    seen: set[int] = set()
    best: list[tuple[FrameType, int]] = []
    best_n = -1
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb = e.__traceback__
        entries = []
        while tb is not None:
            entries.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
        n = sum(1 for f, _ in entries if compat.is_program_file(f.f_code.co_filename))
        if n > best_n:
            best, best_n = entries, n
        e = e.__cause__ or e.__context__
    return best


def program_chain(exc: BaseException) -> list[dict]:
    """The program's frames the exception passed through and the frames that called them, outermost first."""
    try:
        entries = _traceback(exc)
        outer: list[tuple[FrameType, int]] = []
        if entries:
            held = {id(f) for f, _ in entries}
            f = entries[0][0].f_back
            while f is not None:
                if id(f) not in held:
                    outer.append((f, f.f_lineno or 0))
                f = f.f_back
            outer.reverse()
        tracer = _tracer_type()
        out = []
        for frame, line in [*outer, *entries]:
            code = frame.f_code
            if not code.co_filename.startswith("<") and compat.is_program_file(code.co_filename):
                out.append({"file": code.co_filename, "line": int(line),
                            "function": getattr(code, "co_qualname", code.co_name),
                            "traced": _holds_tracer(frame, tracer)})
        return out[-MAX_FRAMES:]
    except Exception:  # noqa: BLE001 - the chain is evidence; it never breaks the program
        return []


# JAX's wording when a jitted function is given a value that is not an array where it traces one (the leaf at a
# pytree path: `op.tags`, `state.cfg.name`, `d['x']`)
_NOT_ARRAY = re.compile(r"problematic value is of type <class '([\w.]+)'> and was passed to the function at path "
                        r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def field_declared(exc: BaseException) -> list[str]:
    """Where the field holding the value JAX refused to trace is declared, as ``file:line`` in the program's
    code: JAX names the value's path in the jitted function's arguments (``op.tags``) and its type; an object of
    the program's frames (the exception's chain and their callers) with that attribute path and a value of that
    type is the argument, and the class of its MRO that annotates or assigns the field in its body declares it
    (a field a pytree class leaves dynamic: ``static=True``, ``pytree_node=False`` or a static argument fixes it
    there). Empty when JAX's message is not that one or no such object is found."""
    try:
        m = _NOT_ARRAY.search(str(exc))
        if m is None:
            return []
        type_name, path = m.group(1).rpartition(".")[2], m.group(2).split(".")
        if len(path) < 2:
            return []
        entries = _traceback(exc)
        frames = [f for f, _ in entries]
        f = entries[0][0].f_back if entries else None
        while f is not None:
            frames.append(f)
            f = f.f_back
        for frame in reversed(frames):  # the innermost first: the call that passed it
            if not compat.is_program_file(frame.f_code.co_filename):
                continue
            for value in list(frame.f_locals.values()):
                owner = _resolve(value, path[1:-1])
                if owner is None:
                    continue
                leaf = _static_attr(owner, path[-1])
                if type(leaf).__name__ == type_name:
                    site = _declaration(type(owner), path[-1])
                    if site:
                        return [site]
    except Exception:  # noqa: BLE001 - the site is evidence; it never breaks the program
        return []
    return []


def _static_attr(value: Any, name: str) -> Any:
    """``value.name`` as stored (instance ``__dict__``, slots, class attributes): no property or ``__getattr__`` of
    the program runs while an error is being explained (``inspect.getattr_static``)."""
    import inspect

    got = inspect.getattr_static(value, name, None)
    return None if isinstance(got, (property, staticmethod, classmethod)) else got


def _resolve(value: Any, steps: list[str]) -> Any:
    for step in steps:
        value = _static_attr(value, step)
        if value is None:
            return None
    return value


def _declaration(cls: type, name: str) -> str:
    """``file:line`` of ``name: ...`` / ``name = ...`` in the body of the first class of ``cls``'s MRO that declares
    it in a program file, or ''."""
    import inspect

    for klass in cls.__mro__:
        if name not in klass.__dict__.get("__annotations__", {}) and name not in klass.__dict__:
            continue
        try:
            file = inspect.getsourcefile(klass)
            lines, start = inspect.getsourcelines(klass)
        except (OSError, TypeError):
            return ""
        if not file or not compat.is_program_file(file):
            return ""
        pat = re.compile(rf"^\s+{re.escape(name)}\s*[:=]")
        for i, text in enumerate(lines):
            if pat.match(text):
                return f"{file}:{start + i}"
        return ""
    return ""
