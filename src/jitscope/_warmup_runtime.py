"""The warm-up's runtime: rebuild a recorded jit call from values and compile it ahead of time (issue #26).

This file is copied verbatim, after its two data tables, into every script ``jitscope warmup`` writes, so
it imports only the standard library and JAX; jitscope itself uses the same functions to check, while a
program compiles, that what it records rebuilds equal (``collect/warmup_record.py``), to run a program up
to its main guard (``jitscope watch --warmup``) and for ``jitscope.warmup.run``. One implementation.

A call is an entry: the module and attribute path of the jitted object the program called (``('train_step',
'_cached')`` for ``equinox.filter_jit``'s inner ``jax.jit``) and its arguments as JAX saw them, each a
value record, a tuple of literals:

* ``('array', shape, dtype, weak_type, device, memory_kind)``: a ``jax.ShapeDtypeStruct`` (``dtype``
  ``'key:threefry2x32'``: a typed PRNG key array of that implementation);
* ``('literal', value)``: a Python literal;
* ``('ref', module, qualname, unwrap)``: the object at ``module.qualname`` (after ``unwrap`` steps down
  ``__wrapped__``); read, never called;
* ``('tuple' | 'list' | 'frozenset', items)``, ``('dict', ((key, value), ...))``: containers of records;
* ``('tree', treedef, leaves)``: a pytree argument: ``treedef`` is ``None`` for a leaf or ``(type, aux,
  children)`` (``type`` and ``aux`` records), built through JAX's registry, so only registered pytree node
  types can appear, then unflattened with the leaves;
* ``('treedef', treedef)``: a ``PyTreeDef`` value (a static argument's, an aux's);
* ``('namedtuple', type, items)``: a namedtuple, built with ``tuple.__new__`` (its own ``__new__`` not run);
* ``('object', type, ((attribute, value), ...))``: an instance of a class compared by value (its own
  ``__eq__`` and ``__hash__``, no ``__del__``: ``value_class``), a frozen dataclass for one, built without
  running its ``__init__`` (``object.__new__``, then ``object.__setattr__`` per attribute).

Nothing in an entry is code: a run can make the warm-up import the modules it names and read their
attributes, build registered pytree nodes, namedtuples and value objects from their attributes, and lower
and compile a JAX jitted object; it cannot make it call anything else (JAX itself calls the registered
unflatten functions and the rebuilt objects' ``__eq__``/``__hash__``, as for the program's own). Entries whose module is ``__main__`` are the program's own script:
they are warmed in the program's process, with its objects (``warmup(main=module)``), never by importing
the file a second time (that would build other function objects, whose compiles the program never hits).
"""

import argparse
import ast
import concurrent.futures
import importlib
import os
import sys
import time

import jax

MAX_DEPTH = 200  # nesting of a record; deeper is refused (a crafted run must not exhaust the stack)
_ATOMS = (type(None), bool, int, float, complex, str, bytes)


class Skip(Exception):
    """An entry this process cannot warm up (its reason is printed)."""


class Deferred(Exception):
    """An entry of the program's own ``__main__``, when the program is not running in this process."""


# -- values ---------------------------------------------------------------------------------------------
def rebuild(record, main=None, depth=0):
    """The Python value a value record stands for (arrays as ``jax.ShapeDtypeStruct``).

    ``main``: the module that ``'__main__'`` refers to (the program's). Raises ValueError for a record
    this runtime does not read, LookupError for a name that does not resolve.
    """
    if depth > MAX_DEPTH:
        raise ValueError("a record nested too deeply")
    if not isinstance(record, tuple) or not record or not isinstance(record[0], str):
        raise ValueError(f"not a value record: {type(record).__name__}")
    kind = record[0]
    if kind == "array" and len(record) == 6:
        return array_spec(*record[1:])
    if kind == "literal" and len(record) == 2:
        return record[1]
    if kind == "ref" and len(record) == 4:
        return resolve(record[1], record[2], record[3], main)
    if kind in ("tuple", "list", "frozenset") and len(record) == 2:
        items = [rebuild(r, main, depth + 1) for r in record[1]]
        return {"tuple": tuple, "list": list, "frozenset": frozenset}[kind](items)
    if kind == "dict" and len(record) == 2:
        return {rebuild(k, main, depth + 1): rebuild(v, main, depth + 1) for k, v in record[1]}
    if kind == "tree" and len(record) == 3:
        leaves = [rebuild(r, main, depth + 1) for r in record[2]]
        return treedef(record[1], main, depth + 1).unflatten(leaves)
    if kind == "treedef" and len(record) == 2:
        return treedef(record[1], main, depth + 1)
    if kind == "namedtuple" and len(record) == 3:
        cls = rebuild(record[1], main, depth + 1)
        if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
            raise ValueError(f"{getattr(cls, '__qualname__', cls)!r} is not a namedtuple class")
        return tuple.__new__(cls, [rebuild(r, main, depth + 1) for r in record[2]])
    if kind == "object" and len(record) == 3:
        cls = rebuild(record[1], main, depth + 1)
        if not value_class(cls):
            raise ValueError(f"{getattr(cls, '__qualname__', cls)!r} is not a class compared by value")
        obj = object.__new__(cls)
        for name, value in record[2]:
            if not (isinstance(name, str) and name.isidentifier()):
                raise ValueError(f"{name!r} is not an attribute name")
            object.__setattr__(obj, name, rebuild(value, main, depth + 1))
        return obj
    raise ValueError(f"not a value record: {kind!r}")


def value_class(cls):
    """A class whose instances may be rebuilt from their attributes: compared by value (its own ``__eq__`` and
    ``__hash__``, as jit needs of a static value or aux datum), with no ``__del__`` (nothing runs when a
    rebuilt one is dropped) and instances laid out as a plain object's."""
    if not isinstance(cls, type) or cls.__hash__ in (None, object.__hash__) or cls.__eq__ is object.__eq__:
        return False
    if any("__del__" in vars(k) or "__new__" in vars(k) and k.__module__ == "builtins" for k in cls.__mro__[:-1]):
        return False
    try:
        object.__new__(cls)
    except TypeError:
        return False
    return True


def treedef(record, main=None, depth=0):
    """A ``PyTreeDef`` from ``None`` (a leaf) or ``(type, aux, children[, layout])``, through JAX's own registry.

    ``layout`` is ``'dataclass'`` for a ``register_dataclass`` node recorded on a JAX without
    ``PyTreeDef.from_node_data_and_children`` (0.6), absent otherwise."""
    if depth > MAX_DEPTH:
        raise ValueError("a record nested too deeply")
    if record is None:
        return jax.tree_util.tree_structure(0)
    if not isinstance(record, tuple) or len(record) not in (3, 4) or record[3:] not in ((), ("dataclass",)):
        raise ValueError("not a tree-structure record")
    typ, aux, children = (rebuild(record[0], main, depth + 1), rebuild(record[1], main, depth + 1), record[2])
    kids = [treedef(c, main, depth + 1) for c in children]
    cls = type(jax.tree_util.tree_structure(0))
    make = getattr(cls, "from_node_data_and_children", None) or getattr(cls, "make_from_node_data_and_children",
                                                                        None)
    if make is None:
        return _treedef_from_state(cls, typ, aux, kids, record[3] if len(record) == 4 else None)
    return make(jax.tree_util.default_registry, (typ, aux), kids)


# JAX 0.6 (no ``from_node_data_and_children``): a treedef is built from its pickled form, the nodes in
# post-order, each ``(kind, arity, node data, custom type, leaves, nodes)``: the children's nodes, then this
# one's. Kinds: 0 leaf, 1 None, 2 tuple, 3 namedtuple, 4 list, 5 dict, 6 custom node, 7 registered dataclass.
# (A kind that does not match the type's registration can crash JAX on unflatten: the recorder checks that
# each rebuilt treedef equals the program's before it records the call, and the layout comes from there.)
_BUILTIN_KINDS = {type(None): 1, tuple: 2, list: 4, dict: 5}


def _treedef_from_state(cls, typ, aux, kids, layout):
    nodes = [node for kid in kids for node in kid.__getstate__()[1]]
    if typ in _BUILTIN_KINDS and layout is None:
        kind, data, custom = _BUILTIN_KINDS[typ], (list(aux) if typ is dict else None), None
    elif isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields") and aux is None and \
            layout is None:
        kind, data, custom = 3, typ, None
    elif isinstance(typ, type):
        kind, data, custom = (7 if layout == "dataclass" else 6), aux, typ
    else:
        raise ValueError(f"{typ!r} is not a pytree node type")
    nodes.append((kind, len(kids), data, custom, sum(k.num_leaves for k in kids), 1 + sum(k.num_nodes for k in kids)))
    tree = cls.__new__(cls)
    tree.__setstate__((jax.tree_util.default_registry, nodes))
    return tree


def array_spec(shape, dtype, weak_type=False, device=None, memory_kind=None):
    """One array argument: ``jax.ShapeDtypeStruct`` (a committed array's device as its ``jax.devices()`` id)."""
    sharding = None
    if device is not None:
        found = [d for d in jax.devices() if d.id == device]
        if not found:
            raise LookupError(f"device id {device} is not one of this process's devices")
        kind = {"memory_kind": memory_kind} if memory_kind else {}
        sharding = jax.sharding.SingleDeviceSharding(found[0], **kind)
    if isinstance(dtype, str) and dtype.startswith("key:"):
        impl = dtype[4:]
        dt = jax.eval_shape(lambda: jax.random.key(0, impl=impl)).dtype  # traced only: compiles nothing
    else:
        dt = jax.numpy.dtype(dtype)
    return jax.ShapeDtypeStruct(tuple(shape), dt, weak_type=weak_type, sharding=sharding)


def resolve(module, qualname, unwrap=0, main=None):
    """The object at ``module.qualname`` (attribute by attribute), ``unwrap`` steps down ``__wrapped__``."""
    obj = main_module(main) if module == "__main__" else module_named(module)
    for part in qualname.split("."):
        if not part.isidentifier():
            raise ValueError(f"{qualname!r} is not a dotted name")
        obj = getattr(obj, part)
    for _ in range(int(unwrap)):
        obj = obj.__wrapped__
    return obj


def main_module(main):
    if main is None:
        raise Deferred("the program's own __main__ is not running in this process")
    return main


def module_named(name, file=None, root=None):
    """``import name``; when that fails, once more with ``root`` (relative to this script) on ``sys.path``."""
    if not all(p.isidentifier() for p in name.split(".")):
        raise ValueError(f"{name!r} is not a dotted module name")
    mod = sys.modules.get(name)
    if mod is not None:
        return mod
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if root is None or e.name is None or not name.startswith(e.name):
            raise
    where = os.path.normpath(os.path.join(_here(), root))
    sys.path.insert(0, where)  # only while importing: the program's own sys.path stays as it was
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(where)


def _here():
    return os.path.dirname(os.path.abspath(globals().get("__file__") or "."))


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except (OSError, TypeError, ValueError):
        return False


# -- entries --------------------------------------------------------------------------------------------
def jitted(entry, main=None, check=True):
    """The JAX jitted object an entry names: its module's attribute path (``check``: it must be one)."""
    if entry["module"] == "__main__":
        mod = main_module(main)
        want = os.path.normpath(os.path.join(_here(), entry["file"]))
        got = getattr(mod, "__file__", None)
        moved = not os.path.exists(want) and isinstance(got, str) and os.path.basename(got) == os.path.basename(want)
        if not (isinstance(got, str) and (same_file(got, want) or moved)):
            raise Deferred(f"this process's __main__ is {got or 'not a file'}, not the program {want}")
    else:
        mod = module_named(entry["module"], entry["file"], entry["root"])
    obj = mod
    for part in entry["path"]:
        if not part.isidentifier():
            raise Skip(f"{part!r} is not an attribute name")
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise Skip(f"{entry['module']} has no {'.'.join(entry['path'])}") from None
    if check and not isinstance(obj, jax.stages.Wrapped):
        raise Skip(f"{entry['module']}.{'.'.join(entry['path'])} is a {type(obj).__name__}, not a jitted function")
    return obj


def prepare(entry, main=None, contexts=None):
    """``compile()`` for one entry, with its jitted object and arguments resolved here (Skip/Deferred if not).

    ``contexts``: the library context managers an entry may ask to enter around its call (default: this
    script's CONTEXTS); the wrapper object at the path's parent is their argument."""
    if entry.get("x64") and not jax.config.jax_enable_x64:
        raise Skip("has 64-bit arguments: the program ran with jax_enable_x64 (set JAX_ENABLE_X64=1)")
    fn = jitted(entry, main)
    args = [rebuild(a, main) for a in entry["args"]]
    kwargs = {k: rebuild(v, main) for k, v in entry["kwargs"].items()}
    context = entry.get("context")
    if context is None:
        return lambda: fn.lower(*args, **kwargs).compile()
    if context not in (globals().get("CONTEXTS", ()) if contexts is None else contexts):
        raise Skip(f"asks for the context {context!r}, which this warm-up does not know")
    module, _, name = context.rpartition(".")
    enter = resolve(module, name, 0, main)
    wrapper = jitted(dict(entry, path=entry["path"][:-1]), main, check=False)

    def compile_it():
        with enter(wrapper):
            return fn.lower(*args, **kwargs).compile()

    return compile_it


def printable(text):
    """Text as the terminal may show it: control characters escaped, never interpreted."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


COMPILED = []  # every executable compiled here, for the life of the process (JAX may hold them weakly)


def warmup(threads=None, verbose=True, main=None, only_main=False, calls=None, contexts=None):
    """Compile every entry of ``calls`` (default: this script's CALLS) ahead of time, in this process.

    ``main``: the program's ``__main__`` module, for entries defined in it (default: this process's
    ``__main__`` when it is the recorded file: the program called ``warmup()`` itself); without it those
    entries are deferred, not failed. ``only_main``: only those entries (the rest were warmed before the
    program started). ``threads`` > 1 compiles in a thread pool (imports and arguments are prepared
    first, here). Returns counts by outcome: compiled, skipped, failed, deferred.
    """
    calls = globals().get("CALLS", ()) if calls is None else calls
    threads = globals().get("THREADS", 1) if threads is None else threads
    if main is None and "__main__" in sys.modules and sys.modules["__main__"].__dict__ is not globals():
        main = sys.modules["__main__"]
    t0 = time.perf_counter()
    counts = {"compiled": 0, "skipped": 0, "failed": 0, "deferred": 0}
    jobs = []

    def say(outcome, entry, text):
        counts[outcome] += 1
        if verbose:
            name = ".".join([entry["module"], *entry["path"]])
            print(f"warmup: {outcome}: {printable(name)}({printable(entry.get('signature', ''))}): "
                  f"{printable(text)}", file=sys.stderr)

    chosen = [e for e in calls if not only_main or e["module"] == "__main__"]
    for entry in chosen:
        try:
            jobs.append((entry, prepare(entry, main, contexts)))
        except Deferred:
            counts["deferred"] += 1
        except Skip as e:
            say("skipped", entry, e)
        except Exception as e:  # an import or rebuild error: the others still warm up
            say("failed", entry, f"{type(e).__name__}: {' '.join(str(e).split())[:300]}")

    def run(job):
        entry, compile_it = job
        try:
            COMPILED.append(compile_it())
            return entry, None
        except Exception as e:
            return entry, f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"

    if threads > 1 and len(jobs) > 1:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(run, jobs))
    else:
        done = [run(job) for job in jobs]
    for entry, error in done:
        if error is None:
            counts["compiled"] += 1
        else:
            say("failed", entry, error)
    if verbose:
        waiting = (f", {counts['deferred']} of the program's __main__ wait for it (run it through this script:"
                   " `python warmup.py PROGRAM.py ARGS`)") if counts["deferred"] else ""
        left = len(globals().get("NOT_COVERED", ()))
        print(f"warmup: compiled {counts['compiled']} of {len(chosen)} in {time.perf_counter() - t0:.2f} s"
              f" ({counts['skipped']} skipped, {counts['failed']} failed{waiting}"
              f"{f'; {left} not covered by this script, listed in it' if left else ''})", file=sys.stderr)
    return counts


# -- a program run as __main__, paused at its main guard --------------------------------------------------
def _is_main_guard(node):
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    t = node.test
    if len(t.ops) != 1 or not isinstance(t.ops[0], ast.Eq):
        return False
    sides = [t.left, t.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


def split_at_main_guard(source, filename):
    """The program's code as two code objects: every top-level statement before its first
    ``if __name__ == "__main__":`` and the rest (None when it has no such guard). Run one after the other
    in one namespace they are the program, statement for statement; something may run in between."""
    import __future__

    tree = ast.parse(source, filename)
    at = next((i for i, node in enumerate(tree.body) if _is_main_guard(node)), None)
    if at is None:
        return None
    flags = 0
    for node in tree.body[:at]:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(__future__, alias.name).compiler_flag
    parts = (ast.Module(tree.body[:at], []), ast.Module(tree.body[at:], []))
    return tuple(compile(p, filename, "exec", flags=flags, dont_inherit=True) for p in parts)


def run_as_main(target, args, module=False, at_main_guard=None):
    """Run a script (or ``-m`` module) as ``python`` runs it, as ``__main__``, calling ``at_main_guard(module)``
    just before its main guard (never, for a program without one). Raises what the program raises."""
    import runpy
    import types

    if module:
        spec = importlib.util.find_spec(target)
        if spec is None:
            raise ImportError(f"no module named {target!r}")
        if spec.submodule_search_locations is not None:  # a package: its __main__
            spec = importlib.util.find_spec(target + ".__main__")
        filename, source = spec.origin, spec.loader.get_source(spec.name)
    else:
        spec, filename = None, os.path.abspath(target)
        with open(filename, "rb") as f:
            source = f.read()
    parts = split_at_main_guard(source, filename) if source is not None else None
    if parts is None:  # no guard (or no source): exactly as python would
        sys.argv = [filename if module else target, *args]
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(filename, run_name="__main__")
        return
    mod = types.ModuleType("__main__")
    mod.__dict__.update(__file__=filename, __cached__=None, __loader__=spec.loader if spec else None,
                        __package__=spec.parent if spec else "", __spec__=spec, __builtins__=__builtins__)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = mod
    sys.argv = [filename if module else target, *args]
    try:
        exec(parts[0], mod.__dict__)
        if at_main_guard is not None:
            at_main_guard(mod)
        exec(parts[1], mod.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=(globals().get("__doc__") or "warm-up").splitlines()[0],
        usage="%(prog)s [--threads N] [-q] [PROGRAM.py ARGS... | -m MODULE ARGS...]")
    parser.add_argument("--threads", type=int, default=globals().get("THREADS", 1), help="compile in N threads")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    parser.add_argument("-m", dest="module", metavar="MODULE", help="run this module as the program (python -m)")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="the program to run, warmed, and its arguments")
    argv = list(sys.argv[1:] if argv is None else argv)
    i = 0  # the warm-up's own options end at the program (PROGRAM.py or -m MODULE): the rest is the program's
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-m", "--"):
        i += 2 if argv[i] == "--threads" else 1
    if i < len(argv) and argv[i] == "--":
        i += 1
    program = argv[i + 2:] if argv[i:i + 1] == ["-m"] else argv[i + 1:]
    opts = parser.parse_args(argv[:len(argv) - len(program)])
    opts.program = opts.program + program
    counts = warmup(threads=max(1, opts.threads), verbose=not opts.quiet)
    target = opts.module or (opts.program[0] if opts.program else None)
    if target is None:
        return 1 if counts["failed"] else 0
    rest = opts.program if opts.module else opts.program[1:]
    if not opts.module:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
    else:
        sys.path.insert(0, os.getcwd())

    def at_guard(mod):
        warmup(threads=max(1, opts.threads), verbose=not opts.quiet, main=mod, only_main=True)

    run_as_main(target, rest, module=bool(opts.module), at_main_guard=at_guard)
    return 0
