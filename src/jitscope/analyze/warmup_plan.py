"""Which compiles of a watch run a warm-up script can redo ahead of time, and how (issue #15 item 5).

``jitscope warmup RUN.json`` turns each observed (function, signature, static values) into one
``fn.lower(*specs, **specs).compile()`` call: arrays as ``jax.ShapeDtypeStruct`` (shape, dtype, weak
type, the device of a committed array), pytrees of builtin containers rebuilt from the recorded tree
structure, static values as the literals they were, each argument passed positionally or by keyword
as the program passed it (jit keys its cache on that too). An ahead-of-time compile fills the same
in-process caches an ordinary call uses (measured on JAX 0.6.2, 0.8.3 and 0.10.2: the later call of
the jitted function with real arguments compiles nothing), provided every one of those matches.

It never guesses. A function that cannot be imported by name (a lambda, a closure, a method, a
function defined in the script run as ``__main__``, a run recorded without the function's module),
and a signature that cannot be written exactly (a custom pytree node, an object as static value, a
``functools.partial``, a program compiled under ``grad``/``vmap``, a sharding other than one device,
an opaque leaf) is listed in ``skipped`` with the reason, and left out of the script.

Argument order comes from the function's ``def`` (``inspect_command.module_params``: the same reading
``jitscope inspect`` lines use). Arguments are values, never text (``warmup_values.py``): array specs,
checked literals and containers of them; every name that will reach code is checked to be an identifier.
The renderer writes them as code from an AST.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record
from ..model import DTYPE_SHORT, ArgSignature, CompileEvent, LeafSpec, is_identity_hashed
from .inspect_command import Params, module_params
from .pytree_summary import summarise
from .warmup_values import ArraySpec, Container, Literal, Node, NotRebuildable, dotted_name, identifier, literal_value

_X64 = {"float64", "int64", "uint64", "complex128"}
# model.sharding_text's ``SingleDeviceSharding(cpu:1)``, and JAX's own str() that older runs recorded
_SINGLE_DEVICE = re.compile(r"SingleDeviceSharding\((?:device=\w+\(id=(\d+)\)|\w+:(\d+))(?:, memory_kind=(\w+))?\)")


@dataclass
class WarmupCall(Record):
    """One ahead-of-time compile of the script: ``module.function.lower(*args, **kwargs).compile()``.

    ``args``/``kwargs`` are values (``warmup_values.Node``: ``ArraySpec``, ``Literal``, ``Container``),
    never code; ``module`` is a dotted name and ``function`` and every keyword an identifier (checked).
    ``file`` is the definition file and ``root`` the ``sys.path`` entry the module imports from.
    ``compiles``/``seconds``: what this signature cost in the recorded run.
    """

    module: str
    function: str
    file: str
    root: str
    args: list[Any] = field(default_factory=list)  # Node
    kwargs: dict[str, Any] = field(default_factory=dict)  # keyword -> Node
    signature: str = ""
    x64: bool = False  # a 64-bit argument: the program ran with jax_enable_x64
    compiles: int = 1
    seconds: float = 0.0


@dataclass
class SkippedCompile(Record):
    """A function (or one of its signatures) the script does not warm up, and why."""

    function: str
    reason: str
    module: str | None = None
    where: str = ""  # the definition, file:line
    signatures: list[str] = field(default_factory=list)  # as recorded, one per distinct signature
    compiles: int = 1
    seconds: float = 0.0


@dataclass
class WarmupPlan(Record):
    """What a warm-up script compiles (``calls``) and what it lists as not covered (``skipped``)."""

    calls: list[WarmupCall] = field(default_factory=list)
    skipped: list[SkippedCompile] = field(default_factory=list)
    compiles: int = 0  # compiles in the run (each call and skip counts those it stands for)

    @property
    def covered(self) -> int:
        """Compiles of the run whose signature the script compiles ahead of time."""
        return sum(c.compiles for c in self.calls)


class _NotExact(Exception):
    """Why a compile cannot be redone exactly (the message is the reason shown to the user)."""


def plan(events: Sequence[CompileEvent]) -> WarmupPlan:
    """The warm-up plan for a run's compile events: one call per distinct (function, call), the rest skipped."""
    calls: dict[tuple, WarmupCall] = {}
    skipped: dict[tuple, SkippedCompile] = {}
    for e in events:
        where = f"{e.definition.file}:{e.definition.line}" if e.definition else ""
        sig = summarise(e.signature)  # pytrees by structure, as every report shows a call
        try:
            call = _call_for(e)
        except _NotExact as why:
            key = (e.function, where, str(why))
            if key in skipped:
                s = skipped[key]
                s.compiles += 1
                s.seconds += e.total_seconds
                if sig and sig not in s.signatures:
                    s.signatures.append(sig)
            else:
                skipped[key] = SkippedCompile(e.function, str(why), e.module, where, [sig] if sig else [], 1,
                                              e.total_seconds)
            continue
        key = (call.module, call.function, repr(call.args), repr(sorted(call.kwargs.items())))
        if key in calls:
            calls[key].compiles += 1  # the run compiled this call again (a cleared or evicted cache)
            calls[key].seconds += e.total_seconds
        else:
            calls[key] = call
    return WarmupPlan(list(calls.values()), list(skipped.values()), len(events))


def _call_for(e: CompileEvent) -> WarmupCall:
    name, module = e.function, e.module
    if "<lambda>" in name:
        raise _NotExact("a lambda: it has no name to import")
    if "<locals>" in name:
        raise _NotExact("defined inside a function (a closure): it has no module-level name to import")
    if "." in name and all(p.isidentifier() for p in name.split(".")):
        raise _NotExact("a method or class attribute: the warm-up imports module-level functions only")
    if e.transform:
        raise _NotExact(f"compiled under {_short(e.transform)}: that is another program than the function's own call")
    if e.bindings and "partial(" in e.bindings:
        raise _NotExact("a functools.partial: its bound arguments are not in the signature")
    if module is None:
        raise _NotExact("the run does not record the function's module (recorded by an older jitscope)")
    if module == "__main__":
        raise _NotExact("defined in the script run as __main__: importing that file would run the program "
                        "again as another module, with other jitted objects; move the function into a module "
                        "the script imports")
    try:
        name = identifier(name, "function name")
        module = dotted_name(module)
    except NotRebuildable as why:
        raise _NotExact(str(why)) from None
    file = e.definition.file if e.definition else ""
    root = _import_root(file, module)
    if root is None:
        raise _NotExact(f"its file {_short(repr(file)) if file else '(unknown)'} is not where module {module} "
                        "would be imported from")
    params = module_params(file, name)
    if params is None:
        raise _NotExact(f"no module-level def {name} in {_short(repr(os.path.basename(file)))} "
                        "(defined or rebound otherwise)")
    if e.signature is None:
        raise _NotExact("the argument signature was not recorded")
    args, kwargs, x64 = _arguments(e.signature, params)
    return WarmupCall(module, name, file, root, args, kwargs, summarise(e.signature), x64, 1, e.total_seconds)


def _import_root(file: str, module: str) -> str | None:
    """The ``sys.path`` entry from which ``import module`` loads ``file`` (None: it would not)."""
    parts = module.split(".")
    if not file.endswith(".py") or not all(p.isidentifier() for p in parts):
        return None
    path = os.path.abspath(file)[:-3]
    if os.path.basename(path) == "__init__":
        path = os.path.dirname(path)
    for part in reversed(parts):
        if os.path.basename(path) != part:
            return None
        path = os.path.dirname(path)
    return path


def _arguments(signature: ArgSignature, params: Params) -> tuple[list[Node], dict[str, Node], bool]:
    """``(positional values, keyword values, needs x64)`` that rebuild the call exactly."""
    if signature.keywords is None:
        raise _NotExact("the run does not record which arguments were passed by keyword (an older jitscope)")
    trees = [line.split(": ", 1) for line in signature.treedef.splitlines() if ": " in line]
    names = [name for name, _ in trees] + list(signature.static)
    if any(not n.isidentifier() for n in names):
        raise _NotExact("an argument passed through *args or a filtered (equinox) static leaf")
    leaves = list(signature.leaves)
    values: dict[str, Node] = {}
    x64 = False
    for name, tree in trees:
        node, used = _tree_value(name, tree, leaves)
        for leaf in leaves[:used]:
            x64 = x64 or leaf.dtype in _X64
        values[name] = node
        leaves = leaves[used:]
    if leaves:
        raise _NotExact("the recorded leaves do not match the recorded tree structure")
    for name, value in signature.static.items():
        if is_identity_hashed(value):
            raise _NotExact(f"static argument {name} is an object hashed by identity: no literal rebuilds it")
        try:
            values[name] = literal_value(value)
        except NotRebuildable as why:
            raise _NotExact(f"static argument {name} cannot be rebuilt: {why}") from None
    keywords = set(signature.keywords)
    passed = {n for n in values if n not in keywords}
    positional = params.positional[:len(passed)]
    if set(positional) != passed:
        raise _NotExact("its positional arguments do not match the def's parameters (*args, or a changed def)")
    if keywords & params.positional_only:
        raise _NotExact("a positional-only parameter passed by keyword")
    try:
        kwargs = {identifier(n, "keyword"): values[n] for n in sorted(keywords & set(values))}
    except NotRebuildable as why:
        raise _NotExact(str(why)) from None
    return [values[n] for n in positional], kwargs, x64


def _tree_value(name: str, tree: str, leaves: list[LeafSpec]) -> tuple[Node, int]:
    """One argument's pytree (``PyTreeDef({'b': *, 'w': *})``) as a node, and the number of leaves it used.

    The recorded text is only parsed (``*`` marks a leaf; a tokenizer keeps a ``*`` inside a dict key's
    string apart) and read node by node into values; nothing of it is kept as text."""
    if not (tree.startswith("PyTreeDef(") and tree.endswith(")")):
        raise _NotExact(f"argument {name}: tree structure {_short(repr(tree))} not understood")
    inner = tree[len("PyTreeDef("):-1]
    try:
        toks = [(tokenize.NAME, "_LEAF_") if t.type == tokenize.OP and t.string == "*" else (t.type, t.string)
                for t in tokenize.generate_tokens(io.StringIO(inner).readline)]
        node = ast.parse(tokenize.untokenize(toks).strip(), mode="eval")
    except (tokenize.TokenError, SyntaxError, ValueError, IndentationError, MemoryError, RecursionError):
        raise _NotExact(f"argument {name}: a pytree with a custom node ({_short(repr(inner))})") from None
    if not _builtin_tree(node.body):
        raise _NotExact(f"argument {name}: a pytree with a custom node ({_short(repr(inner))}); only dicts, "
                        "lists, tuples and None are rebuilt")
    count = sum(isinstance(n, ast.Name) for n in ast.walk(node))
    if count > len(leaves) or any(not (leaf.path == name or leaf.path.startswith((name + "[", name + ".")))
                                  for leaf in leaves[:count]):
        raise _NotExact(f"argument {name}: the recorded leaves do not match its tree structure")
    it = iter(leaves[:count])

    def value(n: ast.expr) -> Node:  # in field order: dict values and sequence items left to right
        if isinstance(n, ast.Name):
            return _leaf_spec(next(it))
        if isinstance(n, ast.Constant):
            return Literal(None)
        if isinstance(n, ast.Dict):
            return Container("dict", tuple(value(v) for v in n.values),
                             tuple(k.value for k in n.keys))  # type: ignore[union-attr]
        kind = "list" if isinstance(n, ast.List) else "tuple"
        return Container(kind, tuple(value(e) for e in n.elts))  # type: ignore[attr-defined]

    return value(node.body), count


def _builtin_tree(node: ast.AST, depth: int = 0) -> bool:
    if depth > 100:
        return False
    if isinstance(node, ast.Name):
        return node.id == "_LEAF_"
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Dict):
        return all(isinstance(k, ast.Constant) and type(k.value) in (str, int) for k in node.keys) and \
            all(_builtin_tree(v, depth + 1) for v in node.values)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_builtin_tree(e, depth + 1) for e in node.elts)
    return False


def _leaf_spec(leaf: LeafSpec) -> ArraySpec:
    """One array leaf as an ``ArraySpec``; an opaque or extended-dtype leaf raises ``_NotExact``."""
    if leaf.dtype not in DTYPE_SHORT:
        raise _NotExact(f"argument {_short(repr(leaf.path))} is a {_short(repr(leaf.dtype))}, not an array of a "
                        "standard dtype")
    shape = tuple(leaf.shape)
    if not all(type(d) is int and d >= 0 for d in shape):
        raise _NotExact(f"argument {_short(repr(leaf.path))}: its recorded shape is not a list of sizes")
    device = memory_kind = None
    if leaf.sharding is not None:
        m = _SINGLE_DEVICE.fullmatch(leaf.sharding)
        if m is None:
            raise _NotExact(f"argument {_short(repr(leaf.path))} is committed with sharding "
                            f"{_short(repr(leaf.sharding))}: only one-device shardings are rebuilt")
        device, memory_kind = int(m.group(1) or m.group(2)), m.group(3)
    return ArraySpec(shape, leaf.dtype, bool(leaf.weak_type), device, memory_kind)


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."
