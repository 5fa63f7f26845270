"""What rules see while the engine walks a module: frames, traced-value queries, ``report``.

A ``Frame`` is one function (or the module) being visited: whether JAX traces it, which
parameters are static, and which local names hold traced values, boolean masks, arrays
or containers. ``Context`` answers the rules' questions from the frame stack and the
module facts (``scope.ModuleInfo``): ``resolve`` (qualified names through aliases),
``is_traced`` (simple forward dataflow: arithmetic and ``jnp``/``lax`` calls on traced
values are traced; ``x.shape``, ``x.ndim``, ``x.dtype`` and ``len(x)`` are static),
``is_mask`` and ``report``.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from ..jaxmodel import values
from ..model import Finding, Fix, Location
from . import evidence, facts, guards, pytrees, returns
from .facts import NESTED as NESTED
from .rule import Rule
from .scope import ModuleInfo, StaticSpec
from .source import SourceIndex

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md, "What a command imports")
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _T = TypeVar("_T")

STATIC_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "sharding", "weak_type", "aval"})
STATIC_CALLS = values.DTYPE_PREDICATES | frozenset({
    "len", "isinstance", "issubclass", "callable", "hasattr", "getattr", "type", "id", "repr", "str", "range",
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.result_type", "jax.numpy.dtype",
    "jax.numpy.issubdtype", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.promote_types", "jax.numpy.isscalar",
    "jax.numpy.can_cast", "jax.numpy.iscomplexobj", "jax.eval_shape", "jax.tree_util.tree_structure",
    "jax.tree.structure", "jax.device_count", "jax.local_device_count", "jax.process_index", "jax.devices",
    "numpy.shape", "numpy.ndim", "numpy.prod", "math.prod", "jax.core.is_concrete", "jax.dtypes.result_type",
    "jax.lax.axis_size", "jax.numpy.broadcast_shapes", "jax.lax.broadcast_shapes", "jax.typeof",
})
ARRAY_NAMESPACES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.", "jax.image.", "jax.ops.")
# Methods that return Python objects or containers, not arrays, even on a traced receiver
# (a traced parameter may be a dict or list pytree: `d.values()`, `xs.index(...)`).
NOT_ARRAY_METHODS = frozenset({"item", "tolist", "__array__", "values", "keys", "items", "index", "count",
                                "get_shape", "__len__"})
TRACED_BUILTINS = frozenset({"abs", "pow", "round", "divmod", "sum", "max", "min"})
# Methods whose result is an array when the receiver is one: jax.Array's methods, the `.at[i]`
# updates, and the lookups of a dict pytree of arrays. Any other method of a traced value is a
# method of a pytree object (brax's `sys.qd_size()`, a dataclass's helper) and may well return a
# Python value computed from static fields, so its result is not assumed traced.
ARRAY_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "byteswap", "choose", "clip",
    "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "flatten", "max", "mean",
    "min", "nonzero", "prod", "ptp", "ravel", "repeat", "reshape", "round", "searchsorted", "sort", "squeeze",
    "std", "sum", "swapaxes", "take", "trace", "transpose", "var", "view",
    "set", "add", "multiply", "mul", "divide", "power", "apply", "get", "pop",  # x.at[i].set(v), d.get(k)
})


@dataclass(eq=False, repr=False)  # per-file state: compared by identity (docs/architecture.md)
class Frame:
    """One function (or the module) being visited."""

    node: ast.AST | None
    name: str
    traced: bool = False
    spec: StaticSpec | None = None
    static: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    bound: set[str] = field(default_factory=set)  # names assigned or bound in this frame so far
    traced_names: set[str] = field(default_factory=set)
    masks: set[str] = field(default_factory=set)  # names holding boolean masks of traced values
    arrays: set[str] = field(default_factory=set)  # names known to hold jax arrays
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)
    loop_depth: int = 0
    nested_defs: set[str] = field(default_factory=set)
    loop_defs: set[str] = field(default_factory=set)  # functions defined inside a loop of this frame
    containers: set[str] = field(default_factory=set)  # names bound to a list/dict/set in this frame
    # The tracing model (lint/facts.py): names that hold an abstract tracer on every way the function
    # is reached (a subset of traced_names), and whether every way is known (None: not computed yet).
    must: set[str] = field(default_factory=set)
    closed: bool | None = None
    pytrees: set[str] = field(default_factory=set)  # parameters that are Python containers of traced leaves
    not_none: frozenset[str] = frozenset()  # parameters every known traced way passes a value other than None
    proven: frozenset[tuple[str, str]] = frozenset()  # (parameter, predicate) every known traced way proved
    # names unpacked from a container of traced leaves (`sigma, cache, key = carry`): each is a leaf or
    # itself a container (a dict, None), so its truth value may be a Python one
    elements: set[str] = field(default_factory=set)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)  # pytree names -> their class (lint/pytrees.py)
    compile_time_eval: int = 0  # inside `with jax.ensure_compile_time_eval():` blocks (jnp on Python values is concrete)
    # What rules keep per function visit, keyed by the function that owns the entry (as ``Context.table``).
    scratch: dict = field(default_factory=dict)


class Context:
    """What rules see: the current frame, name resolution, traced-value queries, ``report``."""

    def __init__(self, tree: ast.Module, text: str, filename: str, enabled: set[str]) -> None:
        self.tree = tree
        self.text = text
        self.filename = filename
        self.enabled = enabled
        self.info = ModuleInfo.collect(tree)
        self.frames: list[Frame] = [Frame(None, "<module>")]
        self.findings: list[Finding] = []
        self.source = SourceIndex(text)  # line offsets once per file: slicing stays linear
        self.parents: list[ast.AST] = []  # ancestors of the node being checked (innermost last)
        self.assume_traced = False  # stress mode: every function traced (robustness tests)
        self.observed: dict | None = None  # evidence from a run for this file (lint/evidence.py), by first line
        self._resolved: dict[int, str | None] = {}
        # Nodes live as long as the tree, so their ids are stable keys for the whole lint of this file.
        self._segments: dict[int, str] = {}
        self._jnp: str | None | bool = False
        self._locations: dict[int, tuple[Frame, Location]] = {}
        # Per-file values the analyses build once (``memo``) and tables they fill (``table``), keyed by the
        # function that owns them: two modules can never share (and clobber) an entry by choosing one name.
        self._memos: dict[Callable, Any] = {}
        self._tables: dict[object, dict] = {}
        # What the runner joins across modules after the walk (lint/callgraph.py, lint/wrappers.py).
        self.cg_outgoing: list = []  # call edges to functions of other modules
        self.cg_local: list = []  # call edges resolved in this module
        self.static_imports: set = set()  # imported names whose wrapper summary another module holds
        self.failures: dict[str, tuple[int, str]] = {}  # "rule JSxxx" -> (line, error) of its first failure here

    def rule_failed(self, rule: Rule, node: ast.AST, error: Exception) -> None:
        """A rule raised while checking ``node`` (a bug of jitscope's): kept for one JS004 per rule and file
        (lint/engine.py); the walk goes on, so the other rules' findings stand."""
        if isinstance(error, RecursionError):
            raise error  # too deep: JS003's business
        who = f"rule {getattr(rule, 'code', '') or type(rule).__name__}"
        if who not in self.failures:
            self.failures[who] = (getattr(node, "lineno", 1), f"{type(error).__name__}: {error}"[:200])

    def take_cg_local(self) -> list:
        """The call edges resolved in this module since the last call (lint/reach.py walks them), emptied."""
        out, self.cg_local = self.cg_local, []
        return out

    # -- per-file memos ---------------------------------------------------------------------------
    def memo(self, compute: Callable[[Context], _T]) -> _T:
        """``compute(self)``, computed once per file and kept by the function object itself."""
        try:
            return self._memos[compute]
        except KeyError:
            out = self._memos[compute] = compute(self)
            return out

    def table(self, owner: object) -> dict:
        """A per-file dict that ``owner`` (the function filling and reading it) keeps its entries in."""
        got = self._tables.get(owner)
        if got is None:
            got = self._tables[owner] = {}
        return got

    # -- source access -------------------------------------------------------------------------
    def char_col(self, line: int, byte_col: int) -> int:
        """0-based character column from ast's UTF-8 byte offset."""
        return self.source.char_col(line, byte_col)

    def segment(self, node: ast.AST) -> str:
        """Exact source text of ``node`` (cached: a finding's message and its fix both quote it)."""
        key = node
        try:
            return self._segments[key]
        except KeyError:
            out = self._segments[key] = self.source.segment(node)
            return out

    def location(self, node: ast.AST) -> Location:
        """Where ``node`` is, in 1-based character columns, named by the current function.

        Cached per (node, frame): a finding and its fix usually point at the same node.
        """
        frame = self.frames[-1]
        hit = self._locations.get(node)
        if hit is not None and hit[0] is frame:
            return hit[1]
        loc = self._location(node, frame)
        self._locations[node] = (frame, loc)
        return loc

    def _location(self, node: ast.AST, frame: Frame) -> Location:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self.char_col(line, getattr(node, "col_offset", 0))
        end_col = getattr(node, "end_col_offset", None)
        end_col = self.char_col(end_line, end_col) if end_col is not None else col
        return Location(self.filename, line, col + 1, frame.name if frame.node else None,
                        end_line, end_col + 1)

    # -- frames --------------------------------------------------------------------------------
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    @property
    def in_traced(self) -> bool:
        return self.frames[-1].traced

    @property
    def under_trace(self) -> bool:
        """This function or one it is nested in is traced: a jitted call here is inlined into that trace."""
        return any(f.traced for f in self.frames)

    @property
    def in_loop(self) -> bool:
        return self.frames[-1].loop_depth > 0

    def resolve(self, node: ast.AST) -> str | None:
        """Qualified name of a name/attribute chain (``np.sum`` -> ``jax.numpy.sum`` after ``import jax.numpy as np``).

        Cached per node: several rules ask about the same call, and a node is visited in one frame only.
        """
        key = node
        try:
            return self._resolved[key]
        except KeyError:
            pass
        out = self._resolved[key] = self._resolve(node)
        return out

    def _resolve(self, node: ast.AST) -> str | None:
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and len(self.frames) > 1 and self._local_frame(base.id) is not None:
            return None
        q = self.info.callees.get(node, False)  # every callee was resolved once by the pre-pass
        return self.info.resolve(node) if q is False else q

    def _local_frame(self, name: str) -> Frame | None:
        for f in reversed(self.frames[1:]):
            if name in f.bound or name in f.params:
                return f
        return None

    def jnp_alias(self) -> str | None:
        """The module-level name for ``jax.numpy`` if it is visible here (not shadowed by a local), else None."""
        name = self._jnp
        if name is False:
            name = self._jnp = self.info.jnp_alias()  # module-level imports do not change during the walk
        if name is None or self._local_frame(name) is not None:
            return None
        if any(name in f.declared_global for f in self.frames):
            return None
        return name

    def is_module_global(self, name: str) -> bool:
        """True if ``name`` here refers to a module-level binding (not a local or closure variable)."""
        if name in self.frame.declared_global:
            return True
        return self._local_frame(name) is None

    # -- traced values -------------------------------------------------------------------------
    def is_traced(self, node: ast.AST | None) -> bool:
        """Does ``node`` evaluate to a traced value (a tracer) in the current frame?"""
        if node is None or not self.frames[-1].traced:
            return False
        t = type(node)
        if t is ast.Name:
            f = self._local_frame(node.id)  # type: ignore[attr-defined]
            return f is not None and node.id in f.traced_names  # type: ignore[attr-defined]
        if t is ast.Attribute:
            if node.attr in STATIC_ATTRS:  # type: ignore[attr-defined]
                return False
            if node.attr in ("T", "mT", "real", "imag", "at"):  # type: ignore[attr-defined]
                return self.is_traced(node.value)  # type: ignore[attr-defined]
            if pytrees.array_field(self, node):  # type: ignore[arg-type]  # `state.entities` of a traced pytree
                return True
            return bool(self.observed) and evidence.observed_leaf(self, node)  # `self.w` a run saw abstract
        if t is ast.Subscript:
            v = node.value  # type: ignore[attr-defined]
            if type(v) is ast.Name and v.id in self.frames[-1].pytrees:  # type: ignore[attr-defined]
                return True  # an element of a container of traced arrays
            if pytrees.container_field(self, v):
                return True  # `self.d["k"]`: an item of a dict-valued field of a traced pytree
            if self.observed and evidence.observed_leaf(self, node):
                return True  # `state[0]`: a leaf a run saw abstract
            if type(v) is ast.Call and container_call(self.resolve(v.func), v):  # type: ignore[attr-defined]
                return self.container_items(v)[0]  # `jnp.nonzero(m, size=3)[0]`: one of its arrays
            return self.is_traced(v)
        if t is ast.BinOp:
            return self.is_traced(node.left) or self.is_traced(node.right)  # type: ignore[attr-defined]
        if t is ast.UnaryOp:
            return self.is_traced(node.operand)  # type: ignore[attr-defined]
        if t is ast.Compare:
            if any(type(op) in (ast.Is, ast.IsNot, ast.In, ast.NotIn) for op in node.ops):  # type: ignore[attr-defined]
                return False
            if any(self._sentinel(c) for c in (node.left, *node.comparators)):  # type: ignore[attr-defined]
                return False  # `state == sentinel`: an array compared with an object() is a Python False
            if any(type(c) is ast.Constant and type(c.value) is str for c in (node.left, *node.comparators)):  # type: ignore[attr-defined]
                return False  # `bc[0] == "periodic"`: working code compares strings, not arrays, with strings
            return self.is_traced(node.left) or any(self.is_traced(c) for c in node.comparators)  # type: ignore[attr-defined]
        if t is ast.BoolOp or t is ast.IfExp:  # each operand where it is evaluated (guards.concrete_facts)
            return guards.narrowed_traced(self, node)  # type: ignore[arg-type]
        if t is ast.Call:
            return self._call_traced(node)  # type: ignore[arg-type]
        if t is ast.NamedExpr:
            return self.is_traced(node.value)  # type: ignore[attr-defined]
        if t is ast.Starred:
            return self.is_traced(node.value)  # type: ignore[attr-defined]
        return False

    def is_must(self, node: ast.AST | None) -> bool:
        """Is ``node`` an abstract tracer on every way the current code is reached (a must fact)?

        The same forward dataflow as ``is_traced``, over the names the model proved abstract
        (``Frame.must``, in a frame whose every caller is known). ``jnp`` applied to Python values
        alone is a must fact only where the code is staged on every way it is reached (every caller
        known, each under jit): under jit every ``jnp`` operation gives a tracer, constants or not;
        elsewhere such code is often a function's eager path."""
        if node is None:
            return False
        t = type(node)
        if t is ast.Name:
            f = self._local_frame(node.id)  # type: ignore[attr-defined]
            return f is not None and node.id in f.must and facts.closed(self, f)  # type: ignore[attr-defined]
        if t is ast.Attribute:
            return node.attr in ("T", "mT", "real", "imag", "at") and self.is_must(node.value)  # type: ignore[attr-defined]
        if t is ast.Subscript and type(node.value) is ast.Call and container_call(  # type: ignore[attr-defined]
                self.resolve(node.value.func), node.value):  # type: ignore[attr-defined]
            return self.container_items(node.value)[1]  # type: ignore[attr-defined]
        if t is ast.Subscript or t is ast.NamedExpr or t is ast.Starred:
            return self.is_must(node.value)  # type: ignore[attr-defined]
        if t is ast.BinOp:
            return self.is_must(node.left) or self.is_must(node.right)  # type: ignore[attr-defined]
        if t is ast.UnaryOp:
            return self.is_must(node.operand)  # type: ignore[attr-defined]
        if t is ast.Compare:
            return self.is_traced(node) and any(self.is_must(c) for c in (node.left, *node.comparators))  # type: ignore[attr-defined]
        if t is ast.BoolOp:
            return self.is_must(node.values[0])  # type: ignore[attr-defined]  # its truth value is taken first
        if t is ast.IfExp:
            return self.is_must(node.body) and self.is_must(node.orelse)  # type: ignore[attr-defined]
        if t is ast.Call:
            if not self._call_traced(node):  # type: ignore[arg-type]
                return False
            func = node.func  # type: ignore[attr-defined]
            if not self.frames[-1].compile_time_eval and (self.resolve(func) or "").startswith(ARRAY_NAMESPACES) \
                    and facts.staged(self) == facts.MUST:
                return True  # `jnp.ceil(n / b)` inside a function only ever jitted: a tracer, whatever n and b are
            args = [*node.args, *(k.value for k in node.keywords)]  # type: ignore[attr-defined]
            if isinstance(func, ast.Attribute) and self.is_must(func.value):  # x.sum(); jnp.sum's `jnp` is no local
                return True
            return any(self.is_must(a) for a in args)
        return False

    def container_items(self, call: ast.Call) -> tuple[bool, bool]:
        """(traced, must) of the arrays in what a jnp call returning a Python tuple or list of them gives
        (``jnp.nonzero``, ``jnp.split``: ``values.returns_container``): the container is Python, its items
        are jnp results like any other (abstract under jit, a must fact when an argument is one)."""
        if not self.frames[-1].traced:
            return False, False
        args = [*call.args, *(k.value for k in call.keywords)]
        traced = True
        if self.frames[-1].compile_time_eval:  # concrete unless computed from a tracer
            traced = any(self.is_traced(a) for a in args)
        return traced, traced and any(self.is_must(a) for a in args)

    def _sentinel(self, node: ast.AST) -> bool:
        """A module-level ``object()`` sentinel (or an imported name called ``sentinel``/``_MISSING``)."""
        if type(node) is not ast.Name or self._local_frame(node.id) is not None:  # type: ignore[attr-defined]
            return False
        name = node.id  # type: ignore[attr-defined]
        return name in self.info.sentinels or name.lower().strip("_") in ("sentinel", "missing", "notset", "unset") \
            or (name in self.info.aliases and "sentinel" in name.lower())

    def _call_traced(self, node: ast.Call) -> bool:
        func = node.func
        q = self.resolve(func)
        if q is not None:
            if q in STATIC_CALLS or container_call(q, node):
                return False  # a Python value (jnp.split gives a list of arrays: its length is static)
            if q.startswith(ARRAY_NAMESPACES) or q in ("jax.numpy", "jax.lax"):
                if q in values.PYTHON_OF_PYTHON and node.args and type(node.args[0]) is ast.Constant \
                        and type(node.args[0].value) in (int, float):
                    return False  # `lax.psum(1, axis)`: the axis size, a Python int
                if self.frames[-1].compile_time_eval:  # concrete unless computed from a tracer
                    return any(self.is_traced(a) for a in node.args) or any(
                        self.is_traced(k.value) for k in node.keywords)
                return True
            if q in TRACED_BUILTINS:
                return any(self.is_traced(a) for a in node.args)
        if isinstance(func, ast.Attribute) and (func.attr in ARRAY_METHODS or (
                func.attr.startswith("__") and func.attr not in NOT_ARRAY_METHODS)):
            return self.is_traced(func.value)
        return False

    def is_mask(self, node: ast.AST) -> bool:
        """Is ``node`` a boolean array computed from traced values (``x < 0``, ``~m``, ``m1 & m2``)?"""
        if not self.frames[-1].traced:
            return False
        t = type(node)
        if t is ast.Compare:
            return self.is_traced(node)
        if t is ast.Name:
            f = self._local_frame(node.id)  # type: ignore[attr-defined]
            return f is not None and node.id in f.masks  # type: ignore[attr-defined]
        if t is ast.UnaryOp and type(node.op) is ast.Invert:  # type: ignore[attr-defined]
            return self.is_mask(node.operand)  # type: ignore[attr-defined]
        if t is ast.BinOp and type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor):  # type: ignore[attr-defined]
            return self.is_mask(node.left) or self.is_mask(node.right)  # type: ignore[attr-defined]
        if t is ast.Call:
            q = self.resolve(node.func) or ""  # type: ignore[attr-defined]
            if q in MASK_FUNCS and self.is_traced(node):
                return True
            f = node.func  # type: ignore[attr-defined]
            # `make_mask(n, k)` returning `jnp.arange(n) < k`: staged with its caller, a traced mask
            return type(f) is ast.Name and self._local_frame(f.id) is None and bool(facts.staged(self)) \
                and returns.returns_jnp_mask(self, f.id, MASK_FUNCS, STATIC_CALLS)
        return False

    # -- reporting -----------------------------------------------------------------------------
    def report(self, rule: Rule, node: ast.AST, message: str | None = None, *, fix: Fix | None = None,
               severity: str | None = None, confidence: str | None = None, subject: ast.AST | None = None,
               related: list[dict] | None = None, in_function: str | None = None, **details: object) -> None:
        """Record a finding of ``rule`` at ``node``. ``message`` defaults to the rule's, formatted with ``details``;
        ``severity`` overrides the rule's default (a weaker claim, e.g. an unknown trip count), and
        ``confidence`` the rule's (``"certain"`` for an error rule, else ``"likely"``); a claim weakened
        to a warning is ``"likely"`` unless said otherwise. ``related``: other lines of the cause (``details.related``,
        each ``{"file", "line", "message"}``; SARIF ``relatedLocations``), where the finding is at the fix's line.
        ``in_function``: the function the finding is in, for a rule that reads a function's body from its ``def``
        (run while the enclosing scope is current); not ``function``, a detail many messages format.

        In traced code the tracing model judges the claim (``lint/facts.py``): an ``error`` whose
        premise (``subject``, default ``node``, is an abstract tracer; the body is staged) holds only on
        some way the code is reached becomes a ``warning``, and a finding whose premise holds on no way
        is dropped. The finding says how the code came to be traced."""
        sev = severity or rule.severity
        note = how = ""
        if rule.traced_only and self.frames[-1].traced:
            if guards.unreachable([*self.parents, node]):
                return  # after a `return`/`raise` of its block: never run, never traced
            verdict = facts.judge(self, rule, node if subject is None else subject, sev)
            if verdict is None:
                return
            if verdict[0] != sev:
                sev, confidence, note = verdict
            how, show = facts.established(self)
            if not show:
                how = ""
            seen = next((f.spec.observed for f in reversed(self.frames) if f.spec is not None and f.spec.observed), "")
            if seen and seen != how:
                note = f"{seen}; {note}" if note else seen
        loc = self.location(node)
        if in_function is not None:
            loc = dataclasses.replace(loc, function=in_function)
        text = message or rule.message.format(**details)
        if confidence is None:
            confidence = rule.confidence if sev == rule.severity else ("certain" if sev == "error" else "likely")
        why = "; ".join(p for p in (f"traced because {how}" if how and not how.startswith("observed:") else how,
                                    note) if p)
        if why:
            text = f"{text} ({why})"
        finding = Finding(rule.code, text, sev, loc, rule.name, fix,  # type: ignore[arg-type]
                          {k: v for k, v in details.items() if isinstance(v, (str, int, float, bool))},
                          confidence)  # type: ignore[arg-type]
        if how:
            finding.details["traced_via"] = how
        if related:
            finding.details["related"] = related
        if rule.traced_only and any(f.spec is not None and f.spec.observed for f in self.frames):
            finding.details["observed"] = True
        self.findings.append(finding)

    def edit(self, rule: Rule, node: ast.AST, replacement: str, title: str) -> Fix:
        """A Fix replacing the source of ``node`` with ``replacement``, at the rule's fix safety."""
        return Fix(title=title, safety=rule.fix or "advice", replacement=replacement,  # type: ignore[arg-type]
                   location=self.location(node))


MASK_FUNCS = frozenset({
    "jax.numpy.isnan", "jax.numpy.isinf", "jax.numpy.isfinite", "jax.numpy.logical_and", "jax.numpy.logical_or",
    "jax.numpy.logical_not", "jax.numpy.logical_xor", "jax.numpy.greater", "jax.numpy.less", "jax.numpy.equal",
    "jax.numpy.not_equal", "jax.numpy.greater_equal", "jax.numpy.less_equal", "jax.numpy.isclose",
})


def container_call(q: str | None, call: ast.Call) -> bool:
    """Does this call of ``q`` return a Python list or tuple of arrays (``jnp.split``, ``jnp.where(c)``)?"""
    if any(type(a) is ast.Starred for a in call.args):
        return q in values.LIST_RETURNING or q in values.TUPLE_RETURNING
    return values.returns_container(q, len(call.args), {k.arg for k in call.keywords if k.arg})
