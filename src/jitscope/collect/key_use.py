"""PRNG keys as the program uses them: one key consumed twice, and a key baked into a traced program.

Every ``jax.random`` function checks its key first (``_jaxcompat.install_key_check_hook``). A call made
directly by the program (its caller is a program frame) *consumes* the key unless it is one of JAX's
non-consuming uses (``fold_in``, ``key_data``, ``key_impl``, ``clone``: the same split JAX's own key-reuse
checker, ``jax.experimental.key_reuse``, makes between sinks and sources). Two records:

* ``KeyReuse``: the same key object (a ``jax.Array``, or a tracer inside one trace) consumed a second time:
  both draws see the same bits (identical or correlated numbers), which ``jax_debug_key_reuse`` would turn
  into a ``KeyReuseError``; watch does not turn that flag on (it changes what JAX does and takes every call
  off the fast path), it sees the reuse the checker would.
* ``BakedKey``: a concrete key consumed while JAX stages a trace (a key from a global, a closure or a static
  attribute, read by a jitted function or a ``lax`` loop body): the key is a constant of the compiled
  program, so every call (every iteration) draws the same numbers.

* ``SeededKey``: keys made anew by ``jax.random.key``/``PRNGKey`` from one Python int seed at one line inside a
  loop (``_jaxcompat.install_key_seed_hook``; the seed is read as the int the program passed, never from the
  device), consumed at one line on two or more iterations: different objects with the same bits, so every
  iteration draws the same numbers (the identity check of ``KeyReuse`` cannot see it).
* ``LoopKey`` (``LoopKeyProbe``): a key argument of a jitted call, held the same on every iteration of a loop.

Keys are held by weak reference only. Cost: the ``jax.random`` call's Python path (microseconds) pays a
frame check and a dictionary lookup; nothing else is touched.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from types import FrameType
from typing import Any

from .._jaxcompat.runtime_hooks import install_key_check_hook, install_key_seed_hook, staging_now
from ..model import Location, is_test_code_file
from .jax_signals import MonitoringProbe
from .program_frames import frame_kind, innermost_program_frame, location
from .test_scope import current_test

NOT_CONSUMING = frozenset({"fold_in", "key_data", "key_impl", "clone"})
MAX_RECORDS = 200


@dataclass
class KeyReuse:
    """A key consumed again after an earlier consuming use."""

    first: Location
    second: Location
    first_api: str
    second_api: str
    traced: bool  # the key was a tracer (both uses inside one trace)
    count: int = 1
    # Under pytest, where the test passed the key at two of its own lines to code that drew from it (``first`` and
    # ``second`` are then the test's lines): the draws' own lines, first and second, in the code the test called
    inner: tuple[Location, Location] | None = None


@dataclass
class SeededKey:
    """Keys made from one literal seed at one line inside a loop, each a new object with the same bits, consumed
    at one line on two or more iterations: every iteration draws the same numbers."""

    seed_at: Location
    seed: int
    consumed_at: Location
    api: str
    count: int = 2  # iterations whose key was consumed there


@dataclass
class BakedKey:
    """A concrete key consumed while a trace was being staged: a constant of the traced program."""

    location: Location
    api: str
    count: int = 1


class KeyUseProbe:
    """Records ``KeyReuse`` and ``BakedKey`` while installed (thread-safe; never raises into the program)."""

    def __init__(self) -> None:
        self.reuses: list[KeyReuse] = []
        self.baked: list[BakedKey] = []
        # id(key) -> (weakref, where, api, test, the test's own line that led there); checked against the weakref
        self._consumed: dict[int, tuple[Any, Location, str, str | None, Location | None]] = {}
        self._reuse_index: dict[tuple, KeyReuse] = {}
        self._baked_index: dict[tuple, BakedKey] = {}
        self.seeded: list[SeededKey] = []
        # id(key) -> (weakref, the seeding line, the seed): keys made in a loop from a Python int seed
        self._seeds: dict[int, tuple[Any, Location, int]] = {}
        self._seed_uses: dict[tuple, Any] = {}  # (seed line, seed, consuming line) -> count, then the SeededKey
        self._lock = threading.Lock()
        self._uninstall: Any = None
        self._uninstall_seed: Any = None

    def install(self) -> KeyUseProbe:
        self._uninstall = install_key_check_hook(self._on_key)
        self._uninstall_seed = install_key_seed_hook(self._on_seed)
        return self

    def uninstall(self) -> None:
        for attr in ("_uninstall", "_uninstall_seed"):
            remove = getattr(self, attr)
            if remove is not None:
                remove()
                setattr(self, attr, None)

    def _on_seed(self, api: str, seed: Any, key: Any, caller: FrameType) -> None:
        """A key made from a seed by the program's own line inside a loop of its frame, from a Python int (no
        device read): remembered, to see whether another iteration's key of the same seed is consumed again."""
        import numpy as np

        if caller is None or frame_kind(caller.f_code.co_filename) != "program" or isinstance(seed, bool) \
                or not isinstance(seed, (int, np.integer)) or staging_now():
            return
        from .host_args import loop_around

        if loop_around(caller.f_code, caller.f_lasti) is None:
            return  # made once per call of its function: a fixed seed the caller chose
        try:
            ref = weakref.ref(key)
        except TypeError:
            return
        with self._lock:
            if len(self._seeds) > 4096:
                self._seeds = {k: v for k, v in self._seeds.items() if v[0]() is not None}
            self._seeds[id(key)] = (ref, location(caller), int(seed))

    def _seeded_use(self, key: Any, where: Location, api: str) -> None:
        """Under the lock: a consumption of a key a loop seeded; the second iteration's is a ``SeededKey``."""
        known = self._seeds.get(id(key))
        if known is None or known[0]() is not key:
            return
        k = (known[1].file, known[1].line, known[2], where.file, where.line)
        seen = self._seed_uses.get(k)
        if seen is None:
            if len(self._seed_uses) < 4096:  # one entry per (seed line, seed, use line): a loop of seeds adds one each
                self._seed_uses[k] = 1
        elif isinstance(seen, SeededKey):
            seen.count += 1
        elif len(self.seeded) < MAX_RECORDS:
            rec = self._seed_uses[k] = SeededKey(known[1], known[2], where, api)
            self.seeded.append(rec)
        del self._seeds[id(key)]  # one consumption per key object counts (a reuse of that object is KeyReuse)

    def _on_key(self, api: str, key: Any, caller: FrameType) -> None:
        if caller is None or frame_kind(caller.f_code.co_filename) != "program":
            return  # JAX calling its own random functions, or a library: not the program's draw
        if api in NOT_CONSUMING:
            return
        import jax

        where = location(caller)
        tracer = isinstance(key, jax.core.Tracer)
        if not tracer and staging_now():
            self._baked(where, api)
        try:
            ref = weakref.ref(key)
        except TypeError:
            return  # a NumPy array as key: each use converts it anew, identity says nothing
        test = current_test()
        outer = _test_line(caller, test)
        with self._lock:
            if not tracer and self._seeds and (test is None or not is_test_code_file(test, where.file)):
                self._seeded_use(key, where, api)
            known = self._consumed.get(id(key))
            # Under pytest, a key consumed in one test and again in another (a module- or session-scoped fixture,
            # a module global) is a reuse no test can observe: each test's draws are its own experiment, and
            # fixing it changes no test. Within one test (or outside pytest) it is a reuse.
            if known is not None and known[0]() is key and known[3] == test:
                # A helper's default key drawn again through another line of the test: the test called the helper
                # twice without a key (its choice). Through one test line, the helper's own reuse stays.
                other_line = known[4] is not None and outer is not None and \
                    (known[4].file, known[4].line) != (outer.file, outer.line)
                if not (other_line and _default_of_a_caller(key, caller, test)):  # type: ignore[arg-type]
                    self._reuse(known[1], where, known[2], api, tracer, known[4], outer)
                return
            if len(self._consumed) > 4096:  # forget keys that died
                self._consumed = {k: v for k, v in self._consumed.items() if v[0]() is not None}
            self._consumed[id(key)] = (ref, where, api, test, outer)

    def _reuse(self, first: Location, second: Location, first_api: str, api: str, tracer: bool,
               first_outer: Location | None = None, second_outer: Location | None = None) -> None:
        inner = None
        # The test passed one key at two of its lines to code that drew from it: the reuse is the test's, at its
        # lines (the library's draws are right for each call). At one test line, the draws' own lines stay.
        if first_outer is not None and second_outer is not None and \
                (first_outer.file, first_outer.line) != (second_outer.file, second_outer.line) and \
                ((first.file, first.line) != (first_outer.file, first_outer.line)
                 or (second.file, second.line) != (second_outer.file, second_outer.line)):
            inner, first, second = (first, second), first_outer, second_outer
        k = (first.file, first.line, second.file, second.line)
        rec = self._reuse_index.get(k)
        if rec is not None:
            rec.count += 1
        elif len(self.reuses) < MAX_RECORDS:
            rec = self._reuse_index[k] = KeyReuse(first, second, first_api, api, tracer, inner=inner)
            self.reuses.append(rec)

    def _baked(self, where: Location, api: str) -> None:
        k = (where.file, where.line)
        with self._lock:
            rec = self._baked_index.get(k)
            if rec is not None:
                rec.count += 1
            elif len(self.baked) < MAX_RECORDS:
                rec = self._baked_index[k] = BakedKey(where, api)
                self.baked.append(rec)


def _default_of_a_caller(key: Any, frame: FrameType, test: str) -> bool:
    """Whether ``key`` is a default argument value (``def make_inputs(n, key=jax.random.key(0))``) of a function
    on the stack between the draw and the running test's own code: the test called it without a key, so every
    call draws the same numbers by the test's choice (inputs it builds the same way twice), not a reuse to fix.
    Module-level functions and methods (through ``self``/``cls``) are resolved; others are not (then False)."""
    f: FrameType | None = frame
    for _ in range(16):
        if f is None or is_test_code_file(test, f.f_code.co_filename):
            return False
        fn = _function_of(f)
        defaults = (getattr(fn, "__defaults__", None) or ()) + tuple((getattr(fn, "__kwdefaults__", None) or {}).values())
        if any(d is key for d in defaults):
            return True
        f = f.f_back
    return False


def _function_of(frame: FrameType) -> Any:
    """The function object a frame runs: a module global of its name, or a method of its first argument's class
    (read from the classes' ``__dict__``, never by ``getattr``, which could run a property)."""
    code = frame.f_code
    fn = frame.f_globals.get(code.co_name)
    if getattr(fn, "__code__", None) is code:
        return fn
    if code.co_argcount:
        owner = frame.f_locals.get(code.co_varnames[0])
        klass = owner if isinstance(owner, type) else type(owner)
        for k in getattr(klass, "__mro__", ()):
            fn = k.__dict__.get(code.co_name)
            fn = getattr(fn, "__func__", fn)  # a classmethod or staticmethod
            if getattr(fn, "__code__", None) is code:
                return fn
    return None


def _test_line(frame: FrameType, test: str | None) -> Location | None:
    """Under pytest, the innermost line of the running test's own code (``model.is_test_code_file``) at or above
    ``frame``: where the test called the code that drew from the key. None outside pytest or with no such frame."""
    if test is None:
        return None
    f: FrameType | None = frame
    for _ in range(64):
        if f is None:
            return None
        if is_test_code_file(test, f.f_code.co_filename):
            return location(f)
        f = f.f_back
    return None


# --- A key argument the same on every iteration of the loop that calls a jitted sampler -------------------------
@dataclass
class LoopKey:
    """A key array passed to a user jitted function from inside a loop, held the same way on every iteration:
    a name the loop never assigns, or a parameter's default value (``def sample(x, key=jax.random.key(0))``,
    called in the loop without a key). Whether the program draws from it is for the analyzer to say, from
    ``jaxpr`` (its flattened input ``index``): a draw from it gives the same numbers at every call."""

    function: str
    location: Location  # the program's call
    loop: Location | None  # the loop's line, when the loop is in a caller of the call's frame
    name: str  # ``key``, or ``sample(key=...)`` for a parameter's default
    default: bool  # a parameter's default value (the caller never passes one)
    index: int  # the key's position among the flattened arguments (the jaxpr's inputs)
    jaxpr: Any = None  # the traced program, live until the analysis (never serialised)


class LoopKeyProbe(MonitoringProbe):
    """Keeps ``LoopKey`` records of the calls that compiled user functions with key arrays among their
    arguments (only calls that traced: a cached call costs nothing). Held the same on every iteration means
    what ``host_args.held_by`` checks for NumPy data (the loop never rebinds the name), or a default value of a
    function between the loop and the call: the loop's line calls it without that argument, so every
    iteration gets the one object the ``def`` made."""

    def __init__(self) -> None:
        self.keys: list[LoopKey] = []
        self._lock = threading.Lock()

    def exit(self, call: Any, exc: BaseException | None) -> None:
        raw = call.pending
        if raw is None or not raw.user or exc is not None or len(self.keys) >= MAX_RECORDS:
            return
        jaxpr = raw.live.get("jaxpr")
        if jaxpr is None:
            return
        try:
            found = _key_leaves(call.args, call.kwargs, len(getattr(jaxpr, "jaxpr", jaxpr).invars))
        except Exception:  # noqa: BLE001 - an exotic pytree: nothing recorded
            return
        if not found:
            return
        import sys

        from .host_args import _loop_frame, held_by

        frame = innermost_program_frame(sys._getframe(1))
        chain = _loop_frame(frame) if frame is not None else None
        if chain is None:
            return  # no loop repeats the call: one draw
        loop_frame, span, inner = chain
        try:
            names, _ = held_by(loop_frame, span, {id(k) for _, k in found}, inner)
            defaults = _defaults_of(inner)
        except Exception:  # noqa: BLE001
            return
        loc = location(frame)  # type: ignore[arg-type]
        loop = location(loop_frame) if loop_frame is not frame else None
        with self._lock:
            for index, key in found:
                default = defaults.get(id(key))
                name = names.get(id(key)) if default is None else default
                if name is not None:
                    self.keys.append(LoopKey(raw.function, loc, loop, name, default is not None, index, jaxpr))


def _key_leaves(args: tuple, kwargs: dict, inputs: int) -> list[tuple[int, Any]]:
    """``(index, leaf)`` of the arguments' key arrays (a typed key, or a raw ``uint32`` key of shape ``(2,)`` or
    ``(4,)``), indexed among the array leaves; empty unless those leaves are exactly the jaxpr's ``inputs``."""
    import jax
    import numpy as np

    leaves = [x for x in jax.tree_util.tree_leaves((args, kwargs))
              if isinstance(x, (jax.Array, np.ndarray, np.generic, int, float, complex, bool))]
    if len(leaves) != inputs:
        return []  # static arguments or an unusual layout: cannot align leaves with the program's inputs
    out = []
    for i, x in enumerate(leaves):
        if not isinstance(x, jax.Array):
            continue
        dt = x.dtype
        if jax.dtypes.issubdtype(dt, jax.dtypes.prng_key) or (dt == np.uint32 and x.shape in ((2,), (4,))):
            out.append((i, x))
    return out


def _defaults_of(frames: list[FrameType]) -> dict[int, str]:
    """``id(value) -> "function(param=...)"`` for the parameter defaults of the functions ``frames`` run, where
    the frame's parameter of that name still holds the default (the caller passed none)."""
    out: dict[int, str] = {}
    for f in frames:
        fn = _function_of(f)
        if fn is None:
            continue
        code = f.f_code
        params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        defaults = getattr(fn, "__defaults__", None) or ()
        named = dict(zip(params[code.co_argcount - len(defaults):code.co_argcount], defaults, strict=False))
        named.update(getattr(fn, "__kwdefaults__", None) or {})
        for p, d in named.items():
            if f.f_locals.get(p) is d and d is not None:
                out.setdefault(id(d), f"{code.co_name}({p}=...)")
    return out
