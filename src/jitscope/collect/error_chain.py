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
    """``value.name`` as stored (instance ``__dict__``, slots, class attributes; a static or class method's
    function): no property or ``__getattr__`` of the program runs while an error is being explained
    (``inspect.getattr_static``)."""
    import inspect

    got = inspect.getattr_static(value, name, None)
    if isinstance(got, (staticmethod, classmethod)):
        return got.__func__  # the function it holds (a class's body function: ``step = staticmethod(step)``)
    return None if isinstance(got, property) else got


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


_UNWRAP = 6  # wrappers followed to the function they wrap (jit of partial of a bound method: three)


def _function_of(value: Any) -> Any:
    """The plain Python function ``value`` runs: through ``jax.jit``'s and ``functools.wraps``'s ``__wrapped__``,
    a bound method's ``__func__`` and ``functools.partial``'s ``func``, read with ``getattr_static`` (nothing of
    the program runs); None for anything else."""
    import types

    for _ in range(_UNWRAP):
        if isinstance(value, types.FunctionType):
            return value
        nxt = None
        for attr in ("__wrapped__", "__func__", "func"):
            nxt = _static_attr(value, attr)
            if nxt is not None and not isinstance(nxt, (str, int, float)):
                break
        if nxt is None:
            return None
        value = nxt
    return None


def _resolve_expr(node: Any, frame: FrameType) -> Any:
    """The value of a name or attribute chain (``run``, ``core.run``, ``self.model.apply``) in ``frame``, read
    without running the program's code (``getattr_static``: a property or ``__getattr__`` is not followed);
    None for any other expression."""
    import ast
    import builtins

    steps = []
    while type(node) is ast.Attribute:
        steps.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return None
    name = node.id
    for space in (frame.f_locals, frame.f_globals, vars(builtins)):
        if name in space:
            return _resolve(space[name], list(reversed(steps)))
    return None


def _statement(frame: FrameType, line: int) -> Any:
    """The AST of the innermost statement holding ``line`` in the source file of ``frame`` (not a ``def`` or
    ``class``: the statement of its body), or None."""
    import ast
    import linecache

    text = "".join(linecache.getlines(frame.f_code.co_filename, frame.f_globals))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.lineno <= line <= (node.end_lineno or node.lineno) and (best is None or node.lineno >= best.lineno):
            best = node
    return best


def handed_to_jax(exc: BaseException) -> list[str]:
    """Where the program defines the functions the innermost program frame of the exception's way handed to JAX
    at the line that raised, as ``file:line`` of each function's code (its first decorator's line): the jitted
    function that line calls (a wrapper's ``__wrapped__``: JAX refused its arguments before tracing any of the
    program's frames, e.g. an unhashable static argument) and the functions it passes to a JAX API (a
    ``lax.scan`` body whose carry types differ: JAX raises after the body has returned, so no frame of the body
    is on the traceback). Calls on that line are read from its source and their names resolved in the frame's
    locals and globals without running anything. Empty when that frame is not found or names no such function."""
    try:
        entries = _traceback(exc)
        inner = [(f, ln) for f, ln in entries if compat.is_program_file(f.f_code.co_filename)]
        return handed_at(*inner[-1]) if inner else []
    except Exception:  # noqa: BLE001 - the sites are evidence; they never break the program
        return []


def handed_at(frame: FrameType, line: int) -> list[str]:
    """``handed_to_jax`` for the program's frame ``frame`` at ``line`` (a probe at JAX's API boundary has the
    program's calling frame before the exception reaches it)."""
    try:
        stmt = _statement(frame, line)
        if stmt is None:
            return []
        import ast
        import types

        found: list[str] = []

        def add(fn: Any) -> None:
            code = getattr(fn, "__code__", None)
            if code is not None and compat.is_program_file(code.co_filename):
                site = f"{code.co_filename}:{code.co_firstlineno}"
                if site not in found:
                    found.append(site)

        for call in sorted((n for n in ast.walk(stmt) if type(n) is ast.Call), key=lambda n: (n.lineno, n.col_offset)):
            callee = _resolve_expr(call.func, frame)
            if callee is None:
                continue
            module = str(getattr(type(callee), "__module__", "") or "")
            api = str(callee.__module__ or "") if isinstance(callee, (types.FunctionType, types.BuiltinFunctionType)) else ""
            if module.split(".")[0] in ("jax", "jaxlib") or _static_attr(callee, "__wrapped__") is not None:
                add(_function_of(callee))  # a jitted (wrapped) function of the program
            if api.split(".")[0] in ("jax", "jaxlib") or module.split(".")[0] in ("jax", "jaxlib"):
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    add(_function_of(_resolve_expr(arg, frame)))
        return found
    except Exception:  # noqa: BLE001 - the sites are evidence; they never break the program
        return []
