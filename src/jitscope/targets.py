"""Resolve user targets (``pkg.mod:fn`` or ``path/to/file.py:fn``) and build call arguments.

Shared by compare, inspect and scale. Arg specs use jaxpr notation::

    f32[1000,1000]   a float32 array of that shape, random normal (seeded)
    i32[]            an int32 scalar array, random in [0, 10)
    bool[8]          random booleans
    3, 2.5, True     Python scalars (weakly typed under jit)

Every failure raises ``UsageError`` with a one-line cause.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ._format import fmt_bytes
from ._pycode import find_spec_writing_nothing
from .errors import UsageError
from .model import DTYPE_LONG

_SPEC_RE = re.compile(r"^\s*~?([a-z]+[0-9]*)\[\s*([0-9,\s]*)\]\s*$")


@dataclass(frozen=True)
class ArraySpec:
    """A parsed ``f32[3,4]`` spec: dtype name (numpy spelling) and shape."""

    dtype: str
    shape: tuple[int, ...]

    def __str__(self) -> str:
        from .model import DTYPE_SHORT

        return f"{DTYPE_SHORT.get(self.dtype, self.dtype)}[{','.join(map(str, self.shape))}]"


def parse_arg_spec(text: str) -> ArraySpec | Any:
    """Parse one ``--arg`` value: an array spec like ``f32[1000,1000]`` or a Python literal.

    Example:
        >>> parse_arg_spec("f32[2,3]")
        ArraySpec(dtype='float32', shape=(2, 3))
        >>> parse_arg_spec("3")
        3
    """
    m = _SPEC_RE.match(text)
    if m:
        short, dims = m.groups()
        dtype = DTYPE_LONG.get(short)
        if dtype is None:
            known = ", ".join(sorted(DTYPE_LONG))
            raise UsageError(f"arg spec '{text}': unknown dtype '{short}' (known: {known})")
        items = [d.strip() for d in dims.split(",")] if dims.strip() else []
        if any(not d for d in items):
            raise UsageError(f"arg spec '{text.strip()}': empty dimension; expected e.g. 'f32[1000,1000]'")
        return ArraySpec(dtype, tuple(int(d) for d in items))
    try:
        return parse_literal(text, f"arg spec '{_clip(text)}'")
    except ValueError:
        raise UsageError(
            f"arg spec '{_clip(text)}' does not parse: expected e.g. 'f32[1000,1000]', 'i32[]' or a Python literal"
        ) from None


# Literal specs come from a command line: bounded so a pasted blob or a 20,000-deep literal is one
# clear error, not a RecursionError / MemoryError from the parser.
MAX_LITERAL_CHARS = 100_000
MAX_LITERAL_DEPTH = 100


def parse_literal(text: str, what: str) -> Any:
    """``ast.literal_eval`` of a command-line value, with size and nesting limits.

    Raises:
        ValueError: ``text`` is not a Python literal (the caller decides what that means).
        UsageError: a literal that is too long, nested too deeply, or unhashable where a dict key
            or set item must be (``{[1]: 2}``); the message starts with ``what``.
    """
    if len(text) > MAX_LITERAL_CHARS:
        raise UsageError(f"{what}: {len(text):,} characters, more than the {MAX_LITERAL_CHARS:,} accepted")
    too_deep = UsageError(f"{what}: nested more than {MAX_LITERAL_DEPTH} levels deep")
    if _bracket_depth(text) > MAX_LITERAL_DEPTH:
        raise too_deep
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise ValueError(text) from None
    except (RecursionError, MemoryError):  # e.g. 20,000 unary minus signs
        raise too_deep from None
    try:
        return ast.literal_eval(tree)
    except (ValueError, SyntaxError):
        raise ValueError(text) from None
    except TypeError as e:  # {[1]: 2}: a list as a dict key
        raise UsageError(f"{what}: {e}") from None
    except (RecursionError, MemoryError):
        raise too_deep from None


def _bracket_depth(text: str) -> int:
    """Deepest nesting of ``([{`` outside string literals (the parser itself stops near 200)."""
    depth = deepest = 0
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]}":
            depth -= 1
        i += 1
    return deepest


def _clip(text: str, width: int = 60) -> str:
    """``text`` shortened for a one-line message."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def parse_static(items: list[str] | None) -> dict[str, Any]:
    """Parse ``--static name=value`` items; values are Python literals, else strings."""
    out: dict[str, Any] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise UsageError(f"--static '{_clip(item)}': expected name=value, e.g. --static n=100")
        try:
            out[name.strip()] = parse_literal(value, f"--static {name.strip()}")
        except ValueError:  # not a literal: passed as the string itself (--static mode=fast)
            out[name.strip()] = value
    check_hashable_static(out)
    return out


def make_args(specs: list[Any], seed: int = 0) -> tuple[Any, ...]:
    """Concrete arguments for parsed specs: seeded random arrays, literals passed through."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    budget = _memory_budget()
    used = 0
    for spec in specs:
        if not isinstance(spec, ArraySpec):
            out.append(spec)
            continue
        dt = np.dtype(spec.dtype) if spec.dtype != "bfloat16" else None
        if spec.dtype in ("float64", "int64", "uint64", "complex128") and not jax.config.jax_enable_x64:
            raise UsageError(f"arg spec '{spec}' needs 64-bit types: set JAX_ENABLE_X64=1")
        nbytes = math.prod(spec.shape) * (dt.itemsize if dt is not None else 2)
        used += nbytes
        if budget is not None and used > budget:
            raise UsageError(f"arg spec '{spec}' needs {fmt_bytes(nbytes)}, more than the memory available "
                             f"({fmt_bytes(budget)} for all arrays); use a smaller shape")
        try:
            if spec.dtype == "bool":
                arr = rng.random(spec.shape, dtype=np.float32) < 0.5
            elif spec.dtype.startswith(("int", "uint")):
                arr = rng.integers(0, 10, size=spec.shape, dtype=dt)
            elif spec.dtype.startswith("complex"):
                part = np.float64 if spec.dtype == "complex128" else np.float32
                arr = np.empty(spec.shape, dtype=dt)
                arr.real = rng.standard_normal(spec.shape, dtype=part)
                arr.imag = rng.standard_normal(spec.shape, dtype=part)
            elif spec.dtype == "float64":
                arr = rng.standard_normal(spec.shape, dtype=np.float64)
            else:
                arr = rng.standard_normal(spec.shape, dtype=np.float32)
            out.append(jnp.asarray(arr, dtype=spec.dtype))
        except (MemoryError, ValueError) as e:
            raise UsageError(f"arg spec '{spec}': cannot allocate {fmt_bytes(nbytes)} "
                             f"({type(e).__name__}: {e}); use a smaller shape") from None
    return tuple(out)


def _memory_budget() -> int | None:
    """Bytes of memory available now (``MemAvailable``, else total physical memory), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return int(pages) * int(size) if pages > 0 and size > 0 else None


def _import_module(name: str) -> ModuleType:
    if name.endswith(".py") or os.sep in name or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"cannot import '{name}': no such file")
        mod_name = f"_jitscope_target_{path.stem}"
        if mod_name in sys.modules:
            return sys.modules[mod_name]
        spec = importlib.util.spec_from_file_location(mod_name, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot import '{name}': not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        parent = str(path.resolve().parent)
        if parent not in sys.path:
            sys.path.insert(0, parent)
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as e:
            del sys.modules[mod_name]
            raise UsageError(_import_failure(f"importing '{name}'", e)) from None
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        raise UsageError(f"cannot import module '{name}': {e}") from None
    except (Exception, SystemExit) as e:
        raise UsageError(_import_failure(f"importing module '{name}'", e)) from None


def _import_failure(doing: str, e: BaseException) -> str:
    """One line for a module that failed at import; ``sys.exit()`` at import is named as such."""
    if isinstance(e, SystemExit):
        return (f"{doing} called sys.exit({e.code!r}) at import; guard the script part of the module "
                "with `if __name__ == \"__main__\":`")
    return f"{doing} raised {type(e).__name__}: {e}"


@dataclass
class Target:
    """A resolved ``module:attr`` target: the module, the attribute path and the object."""

    module: ModuleType
    attr: str
    obj: Any

    @property
    def name(self) -> str:
        return f"{self.module.__name__}:{self.attr}"


def resolve_target(text: str) -> Target:
    """Import ``pkg.mod:fn`` (or ``file.py:fn``; dotted attrs like ``mod:Cls.method`` work)."""
    mod_name, sep, attr = text.rpartition(":")
    if not sep or not mod_name or not attr:
        raise UsageError(f"target '{text}': expected module:function, e.g. mypkg.model:loss")
    module = _import_module(mod_name)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            import difflib

            close = difflib.get_close_matches(part, [n for n in dir(obj) if not n.startswith("__")], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UsageError(f"module '{mod_name}' has no attribute '{attr}'{hint}") from None
    return Target(module, attr, obj)


def module_file(text: str | None) -> str | None:
    """The source file of the module of target ``text`` (``mod:fn`` or ``file.py:fn``), or None.

    Found without running the module itself (``importlib.util.find_spec``; a dotted name's parent
    packages are imported, as the import that follows would), so outputs can be checked against it
    first. None when it cannot be found: resolving the target reports that properly.
    """
    if not text:
        return None
    mod_name, sep, _ = text.rpartition(":")
    name = mod_name if sep else text
    if not name:
        return None
    if name.endswith(".py") or os.sep in name or "/" in name:
        return name if os.path.isfile(name) else None
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        spec = find_spec_writing_nothing(name)
    except (Exception, SystemExit):  # a parent package failing at import: reported by resolve_target
        return None
    origin = getattr(spec, "origin", None)
    return origin if origin and os.path.isfile(origin) else None


def resolve_callable(text: str) -> Callable[..., Any]:
    """Like ``resolve_target`` but the object must be callable."""
    target = resolve_target(text)
    if not callable(target.obj):
        raise UsageError(f"'{text}' is a {type(target.obj).__name__}, not a function")
    return target.obj


def args_from(text: str, seed: int = 0) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Call an ``--args-from`` factory. It may take ``seed`` or nothing, and return
    a tuple of args, a dict of kwargs, or ``(args, kwargs)``."""
    factory = resolve_callable(text)
    import inspect

    try:
        takes_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        takes_seed = False
    try:
        value = factory(seed=seed) if takes_seed else factory()
    except SystemExit as e:
        raise UsageError(f"--args-from '{text}' called sys.exit({e.code!r})") from None
    except Exception as e:
        raise UsageError(f"--args-from '{text}' raised {type(e).__name__}: {e}") from None
    if isinstance(value, dict):
        return (), value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict) and isinstance(value[0], (tuple, list)):
        return tuple(value[0]), value[1]
    if isinstance(value, (tuple, list)):
        return tuple(value), {}
    return (value,), {}


def build_call(
    arg_specs: list[str] | None, static: list[str] | None, args_from_target: str | None, seed: int = 0
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Turn the shared CLI options (--arg, --static, --args-from, --seed) into (args, kwargs)."""
    if args_from_target and arg_specs:
        raise UsageError("use either --arg or --args-from, not both")
    if args_from_target:
        args, kwargs = args_from(args_from_target, seed)
    else:
        args, kwargs = make_args([parse_arg_spec(s) for s in arg_specs or []], seed), {}
    kwargs = {**kwargs, **parse_static(static)}
    return args, kwargs


def check_hashable_static(static: dict[str, Any]) -> None:
    """jit caches on static values, so each must be hashable; raise ``UsageError`` if not."""
    for name, value in static.items():
        try:
            hash(value)
        except TypeError:
            hint = "; pass a tuple" if isinstance(value, (list, tuple)) else ""
            raise UsageError(f"static argument {name}={_clip(repr(value))} is unhashable{hint}") from None
