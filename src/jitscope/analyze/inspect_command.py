"""The ``jitscope inspect`` line that explains a compile another command saw (issue #14 item 6).

watch knows the exact signature of its slowest compile, scale the arguments of its largest size:
this module turns a function's definition site, name and ``ArgSignature`` into the runnable command
(``jitscope inspect prog.py:step --arg f32[1000,1000] --static n=5``), or into None when it cannot
be written exactly. It never guesses: a function that is not a module-level ``def`` of its file
(nested, lambda, method), arguments that are not one array (or Python scalar) per parameter
(pytrees, ``None``), array arguments that only a keyword could pass, static values that are not
Python literals, a compile under ``grad``/``vmap`` (another program than the function's own), or a
``functools.partial`` (its bound arguments are not in the signature) all give None.

The target is ``pkg.mod:fn`` for a module of a package rooted in the working directory, else the
file's path (relative to the working directory when under it): ``prog.py:fn``. The path form is
used for scripts because a module name such as ``test`` or ``random`` could import another module.
"""

from __future__ import annotations

import ast
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from .._format import shown_path
from .._serde import Record
from ..model import DTYPE_SHORT, ArgSignature, CompileEvent, is_identity_hashed

_WEAK_LITERAL = {"float": "1.0", "int": "1", "complex": "1j"}  # a Python scalar traces as a weak type
_X64 = {"float64", "int64", "uint64", "complex128"}


EXPLAINS = ("slowest_compile", "losing_variant", "largest_size")


@dataclass
class InspectCommand(Record):
    """A runnable ``jitscope inspect`` call: target, ``--arg`` specs in parameter order, ``--static``
    items, environment variables it needs. ``explains`` says what it explains (one of ``EXPLAINS``):
    ``detail`` names it (``#3``, ``jit(simulate)``, ``n=1600``), ``seconds`` is its measured cost."""

    target: str
    args: list[str] = field(default_factory=list)
    static: list[str] = field(default_factory=list)  # name=value (Python literals)
    env: dict[str, str] = field(default_factory=dict)  # e.g. JAX_ENABLE_X64=1 for 64-bit arguments
    args_from: str = ""  # compare: the user's own --args-from MOD:FN, passed on as is
    function: str = ""
    explains: str = "slowest_compile"
    detail: str = ""
    seconds: float | None = None

    def argv(self) -> list[str]:
        """The command as an argument list, starting with ``jitscope``."""
        out = ["jitscope", "inspect", self.target]
        for spec in self.args:
            out += ["--arg", spec]
        if self.args_from:
            out += ["--args-from", self.args_from]
        for item in self.static:
            out += ["--static", item]
        return out

    def shell(self) -> str:
        """The command as one shell line (quoted where the shell needs it)."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (env + " " if env else "") + shlex.join(self.argv())


@dataclass
class Params:
    """A module-level ``def``'s parameters: positional (in order), positional-only, keyword-only."""

    positional: list[str]
    positional_only: set[str]
    keyword_only: list[str]


MAX_SOURCE_BYTES = 16 << 20  # a definition file larger than this is not read


def module_params(path: str, name: str) -> Params | None:
    """The parameters of the module-level ``def name`` in ``path`` (None: no such def, or unreadable)."""
    try:  # a path from a run: a regular file of source size only (never a FIFO or /dev/zero)
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_SOURCE_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(MAX_SOURCE_BYTES), path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError):
        return None
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node  # the last definition wins, as at import
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and found is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found = None  # rebound after the def: the module attribute may be something else
    if found is None:
        return None
    a = found.args
    return Params([p.arg for p in (*a.posonlyargs, *a.args)], {p.arg for p in a.posonlyargs},
                   [p.arg for p in a.kwonlyargs])


def target_for(file: str, function: str, cwd: str) -> str | None:
    """``pkg.mod:fn`` or ``path/to/file.py:fn`` for a module-level function of ``file``; None otherwise."""
    if not function.isidentifier() or not file.endswith(".py") or not os.path.isfile(file):
        return None
    path = os.path.abspath(file)
    cwd = os.path.abspath(cwd)
    folder = os.path.dirname(path)
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        parts = [os.path.splitext(os.path.basename(path))[0]]
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            parts.insert(0, os.path.basename(folder))
            folder = os.path.dirname(folder)
        if folder != cwd or parts[-1] == "__init__":
            return None  # a package importable from elsewhere: its name here would be a guess
        return f"{'.'.join(parts)}:{function}"
    return f"{shown_path(path, cwd)}:{function}"


def call_specs(signature: ArgSignature, params: Params) -> tuple[list[str], list[str], dict[str, str]] | None:
    """``(--arg specs, --static items, env)`` that rebuild ``signature`` for a function with ``params``."""
    leaves = {leaf.path: leaf for leaf in signature.leaves}
    if len(leaves) != len(signature.leaves) or not all(p.isidentifier() for p in leaves):
        return None  # a pytree argument (params['w']): --arg takes one array per parameter
    trees = dict(line.split(": ", 1) for line in signature.treedef.splitlines() if ": " in line)
    if any(tree != "PyTreeDef(*)" for tree in trees.values()) or set(trees) - set(leaves):
        return None  # a None or container argument
    static = signature.static
    named = set(params.positional) | set(params.keyword_only)
    if (set(leaves) | set(static)) - named or set(leaves) & set(params.keyword_only):
        return None  # *args/**kwargs, or an array only a keyword could pass
    specs: list[str] = []
    env: dict[str, str] = {}
    gap = False  # a parameter not passed positionally: no array may follow it
    for name in params.positional:
        leaf = leaves.get(name)
        if leaf is None:
            gap = True
            if name in static and name in params.positional_only:
                return None  # --static passes it by keyword
            continue
        if gap or leaf.dtype not in DTYPE_SHORT:
            return None
        if leaf.sharding and not leaf.sharding.startswith("SingleDeviceSharding"):
            return None  # sharded over devices: --arg makes a one-device array, another program
        if leaf.weak_type:
            literal = _WEAK_LITERAL.get(leaf.dtype.rstrip("0123456789"))
            if leaf.shape or literal is None:
                return None
            specs.append(literal)
        else:
            specs.append(leaf.short())
        if leaf.dtype in _X64 and not leaf.weak_type:
            env["JAX_ENABLE_X64"] = "1"
    items = []
    for name, value in static.items():
        if is_identity_hashed(value):
            return None
        try:
            ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None  # not a literal (an object, a function, a truncated repr)
        items.append(f"{name}={value}")
    return specs, items, env


def command_for(file: str | None, function: str, signature: ArgSignature | None, cwd: str,
                **about: object) -> InspectCommand | None:
    """The inspect command for ``function`` defined in ``file`` called with ``signature`` (None: not exact)."""
    if not file or signature is None:
        return None
    target = target_for(file, function, cwd)
    params = module_params(file, function) if target else None
    specs = call_specs(signature, params) if params is not None else None
    if target is None or specs is None:
        return None
    args, static, env = specs
    return InspectCommand(target, args, static, env, function=function, **about)  # type: ignore[arg-type]


def for_slowest_compile(events: Sequence[CompileEvent], cwd: str) -> InspectCommand | None:
    """watch: the command for the slowest user compile that can be written exactly (None: none can)."""
    for e in sorted(events, key=lambda e: -e.total_seconds):
        if e.transform or (e.bindings and "partial(" in e.bindings):
            continue  # a grad/vmap program, or arguments bound by a partial: not the function's own call
        file = e.definition.file if e.definition else None
        cmd = command_for(file, e.function, e.signature, cwd, explains="slowest_compile", detail=f"#{e.index}",
                          seconds=e.total_seconds)
        if cmd is not None:
            return cmd
    return None


def losing_variant(totals: dict[str, float], best: str, candidates: Sequence[str]) -> str | None:
    """compare: the candidate (a jitted variant inspect can rebuild) with the largest total, when it loses
    to ``best``; None when every candidate is the best one."""
    losers = [name for name in candidates if name in totals and name != best and totals[name] > totals.get(best, 0)]
    return max(losers, key=lambda name: totals[name]) if losers else None
