"""Programs JAX compiles outside the user's jit call, and what a traced call is under."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .source import is_user_file

# --- watch: programs JAX compiles outside the user's jit call -----------------
# Checked on JAX 0.6.2, 0.8.3, 0.10.2. The backward program of ``grad(jit(f))``, the programs of
# ``vjp``/``linearize``/``checkpoint``/``vmap`` of a jitted function, and eager ``lax.cond`` /
# ``while_loop`` / ``scan`` are compiled by JAX's ``pjit``/``apply_primitive`` implementation after
# the user's jit call returned (or with no jit call at all). Monitoring names them only
# (``jit(f)``, ``jit(cond)``); the program's ``ClosedJaxpr`` at lowering says where it came from:
# its ``debug_info.func_src_info`` (``"f at file.py:12"``) survives linearize, transpose, batching
# and remat, and JAX's one-primitive wrapper for an eager control-flow op holds the user's bodies
# as sub-jaxprs with their own debug info.


@dataclass(frozen=True)
class ProgramSource:
    """Where a lowered program comes from, when it is built from the user's code.

    ``function``/``file``/``line``: the user's function as JAX recorded it (its ``__name__`` and
    first line). ``primitive``: for an eager control-flow op (``cond``, ``while``, ``scan``), its
    name; ``function`` is then that name and ``bodies`` the user's functions inside
    (``(name, file, line)``, as listed in the primitive's params). ``in_avals``: the program's
    input types (objects with ``shape``, ``dtype``, ``weak_type``).
    """

    function: str
    file: str
    line: int
    primitive: str | None = None
    bodies: tuple[tuple[str, str, int], ...] = ()
    in_avals: tuple = ()


def _func_src(jaxpr: object) -> tuple[str, str, int] | None:
    info = getattr(getattr(jaxpr, "jaxpr", jaxpr), "debug_info", None)
    text = getattr(info, "func_src_info", None)
    if not isinstance(text, str) or " at " not in text:
        return None
    name, _, where = text.rpartition(" at ")
    file, _, line = where.rpartition(":")
    if not file or not line.isdigit():
        return None
    return name, file, int(line)


def _user_code_inside(body: object, entry: tuple[str, str, int], budget: list[int]) -> tuple[str, str, int] | None:
    """The first user function (name, file, first line) whose lines built equations of ``body``, a
    sub-jaxpr JAX traced from its own function ``entry`` (``lax.map``'s body calls the user's ``f``):
    frames of each equation's traceback between the equation and ``entry``'s frame."""
    name, file, line = entry
    for eqn in getattr(body, "eqns", ()):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        tb = getattr(getattr(eqn, "source_info", None), "traceback", None)
        if tb is not None:
            codes, _ = tb.raw_frames()  # innermost first
            for code in codes:
                if code.co_filename == file and code.co_firstlineno == line:
                    break  # the body's own frame: anything further out is the caller, not the body
                if is_user_file(code.co_filename):
                    return code.co_name, code.co_filename, code.co_firstlineno
        for sub in jaxprs_in_params(eqn.params):
            found = _user_code_inside(sub, entry, budget)
            if found is not None:
                return found
    return None


def _traced_elsewhere(jaxpr: object, file: str, budget: int = 2000) -> bool:
    """Whether no equation of a routine's own jaxpr has a frame of the routine's file in its traceback:
    JAX traced it under another program's traceback and reuses that jaxpr. A primitive's lowering rule
    (``random_fold_in``'s, JAX 0.12) traces ``_threefry_fold_in`` under ``user_context`` of the equation
    being lowered, so every equation carries the traceback of the user's jitted call; a later eager
    ``fold_in`` with the same types compiles that cached jaxpr, which is JAX's own program."""
    seen = False
    for eqn in getattr(jaxpr, "eqns", ())[:budget]:
        tb = getattr(getattr(eqn, "source_info", None), "traceback", None)
        if tb is None:
            continue
        codes, _ = tb.raw_frames()
        if any(code.co_filename == file for code in codes):
            return False
        seen = True
    return seen


def program_source(closed_jaxpr: object, known=None) -> ProgramSource | None:  # type: ignore[no-untyped-def]
    """The user's function a program is built from, or None for JAX's own programs (eager ops,
    ``jnp`` routines). ``known((name, file, line))``, when given, says whether a function outside the
    user's files is one watch saw jitted for the user (``pmap``'s wrapper): its programs are the user's too.

    An eager control-flow primitive's program is the user's when a body is a user function, or a
    function of JAX's (``lax.map``'s) whose equations come from the user's lines: a program built from
    the user's code. Likewise any routine of JAX's whose program holds equations made by the user's
    lines inside it (``jnp.piecewise`` with the user's branch functions, ``odeint``'s dynamics): named
    after the routine, defined at the first user function found. JAX's own eager ops and ``jnp``
    routines hold only JAX's lines inside and stay internal."""
    try:
        jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
        avals = tuple(getattr(v, "aval", None) for v in jaxpr.invars)  # type: ignore[attr-defined]
        src = _func_src(jaxpr)
        if src is None:
            return None
        if is_user_file(src[1]) or (known is not None and known(src)):
            return ProgramSource(*src, in_avals=avals)
        eqns = jaxpr.eqns  # type: ignore[attr-defined]
        # apply_primitive's wrapper: jit of a function named after the one primitive it binds.
        if len(eqns) != 1 or eqns[0].primitive.name != src[0]:
            # A routine of JAX's traced with the user's functions (``jnp.piecewise``'s branches,
            # ``odeint``'s dynamics): equations made by the user's lines inside it.
            found = None if _traced_elsewhere(jaxpr, src[1]) else _user_code_inside(jaxpr, src, [2000])
            if found is None:
                return None
            name = src[0].lstrip("_")
            return ProgramSource(name, found[1], found[2], name, (found,), avals)
        subs = jaxprs_in_params(eqns[0].params)
        bodies = tuple(b for b in map(_func_src, subs) if b and is_user_file(b[1]))
        if not bodies:
            budget = [2000]
            inner = (_user_code_inside(sub, entry, budget) for sub in subs if (entry := _func_src(sub)) is not None)
            bodies = tuple(b for b in inner if b is not None)[:1]
        if not bodies:
            return None
        return ProgramSource(src[0], bodies[0][1], bodies[0][2], src[0], bodies, avals)
    except Exception:  # noqa: BLE001 - another JAX's jaxpr layout: the compile stays internal
        return None


# Frames of JAX's transformations, by (file tail, code-name prefix) -> the role of a program compiled
# under them. Only names: a JAX that renames them gives the role "derived", never a wrong count.
_ROLE_FRAMES = ((os.path.join("interpreters", "ad.py"), "backward_pass", "backward"),
                ("ad_checkpoint.py", "remat", "remat"),
                (os.path.join("interpreters", "batching.py"), "", "vmap"))


def derived_program_role(frame: object) -> str:
    """What a program JAX compiles outside the user's jit call is for, from the JAX frames on the stack:
    ``backward`` (the transpose of ``grad``/``vjp``), ``remat``, ``vmap``, joined by ``+``;
    ``derived`` when none is found (``linearize``'s tangent program)."""
    roles: list[str] = []
    f = frame
    while f is not None:
        code = f.f_code  # type: ignore[attr-defined]
        for tail, prefix, role in _ROLE_FRAMES:
            if role not in roles and code.co_name.startswith(prefix) and code.co_filename.endswith(tail):
                roles.append(role)
        f = f.f_back  # type: ignore[attr-defined]
    return "+".join(r for _, _, r in _ROLE_FRAMES if r in roles) or "derived"


def pmap_user_call(fun: object, args: tuple, kwargs: dict) -> tuple[object, tuple, dict] | None:
    """For the function ``jax.pmap`` jits (0.8+: ``jit(shard_map(...))``), the user's function and
    arguments: ``(fun, args, kwargs)``; None for any other function.

    0.10 jits ``_fun`` of ``jax/_src/pmap.py``, whose closure holds the user's function as a
    ``linear_util.WrappedFun`` and the arguments' tree; 0.8 jits ``WrappedFun.call_wrapped``.
    """
    try:
        from jax._src import linear_util as lu

        f = fun
        for _ in range(10):
            inner = getattr(f, "__wrapped__", None)
            if inner is None:
                break
            f = inner
        wrapped, tree = None, None
        if isinstance(getattr(f, "__self__", None), lu.WrappedFun):
            wrapped = f.__self__  # type: ignore[attr-defined]
        elif getattr(getattr(f, "__code__", None), "co_filename", "").endswith(os.path.join("_src", "pmap.py")):
            import jax

            for cell in getattr(f, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                if isinstance(value, lu.WrappedFun):
                    wrapped = value
                elif isinstance(value, jax.tree_util.PyTreeDef):
                    tree = value
        if wrapped is None:
            return None
        if tree is not None and tree.num_leaves == len(args) and not kwargs:
            import jax

            args, kwargs = jax.tree_util.tree_unflatten(tree, args)
        return wrapped.f, tuple(args), dict(kwargs)
    except Exception:  # noqa: BLE001 - another JAX's pmap: the compile stays internal
        return None


def optimized_hlo_text(executable) -> str:  # type: ignore[no-untyped-def]
    """The optimised HLO of a compiled executable ("" when this JAX cannot say)."""
    try:
        return "\n\n".join(m.to_string() for m in executable.hlo_modules())
    except Exception:
        return ""
def jaxpr_of_call_result(out: object) -> object:
    """The ``ClosedJaxpr`` a slow-path jit call traced (or found in JAX's trace cache), from what the
    hooked ``_infer_params`` returned: ``(PjitParams, args)`` on 0.6-0.10. None when not found."""
    try:
        return out[0].params["jaxpr"]  # type: ignore[index]
    except Exception:  # noqa: BLE001 - another JAX: no jaxpr, no jaxpr findings
        return None




_TRANSFORM_NAMES = {"LinearizeTracer": "grad", "JVPTracer": "jvp", "BatchTracer": "vmap",
                    "JaxprTracer": "partial_eval", "DynamicJaxprTracer": "trace"}


def transform_name(tracer: object) -> str:
    """Which transformation a tracer belongs to (``grad``, ``jvp``, ``vmap``, ...), by its class.

    0.9+ give grad its own ``LinearizeTracer``; 0.6-0.8 linearize with a ``JVPTracer`` whose tangent
    is a partial-evaluation ``JaxprTracer`` (a real ``jvp`` carries a concrete tangent).
    """
    name = type(tracer).__name__
    if name == "JVPTracer" and type(getattr(tracer, "tangent", None)).__name__ == "JaxprTracer":
        return "grad"
    return _TRANSFORM_NAMES.get(name, name)


def jaxprs_in_params(params: dict) -> list:
    """The sub-jaxprs of an equation's params (scan/cond/while/pjit bodies), as open ``Jaxpr`` objects.

    ``jax._src.core``'s (checked on 0.6.2 - 0.12.0), never the public ``jax.extend.core`` re-export:
    importing ``jax.extend`` loads ``jax.extend.pallas`` on 0.12, which registers two config options that
    every jit cache key includes, so everything compiled before that import compiles again (docs/watch.md,
    "Nothing of jitscope's changes what JAX does"). ``jax._src.core`` is loaded by ``import jax`` itself.
    """
    from jax._src import core

    return list(core.jaxprs_in_params(params))


def is_literal(atom: object) -> bool:
    """Whether an equation's operand is a ``Literal`` (a constant inlined in the jaxpr) rather than a
    variable. ``jax._src.core.Literal`` (0.6.2 - 0.12.0; the class ``jax.extend.core`` re-exports, which
    jitscope does not import: see ``jaxprs_in_params``)."""
    from jax._src import core

    return isinstance(atom, core.Literal)


def scan_layout(params: dict) -> tuple[int, int] | None:
    """``(number of constants, number of carries)`` of a ``scan`` equation's body inputs (the rest are the scanned
    elements), or None when this JAX's params do not say. JAX 0.6-0.10: ``num_consts``/``num_carry``; 0.12: ``ft_in``,
    a ``flattree.FTTuple`` whose ``elts`` are (constants, carry, xs), ``len()`` their leaves (checked on 0.12.0.1; a carry the body
    returns unchanged is moved to the constants there)."""
    if "num_consts" in params and "num_carry" in params:
        return int(params["num_consts"]), int(params["num_carry"])
    parts = getattr(params.get("ft_in"), "elts", None)  # an FTTuple of three FlatTrees; len() counts leaves
    try:
        consts, carry, _xs = parts  # type: ignore[misc]
        return len(consts), len(carry)
    except (TypeError, ValueError):
        return None
