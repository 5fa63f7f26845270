"""Jit-wrapper summaries across the linted modules: what each file exports, and the runner's join.

``lint/wrappers.py`` summarizes a module's functions that put a parameter into a jit's cache key. Here
each linted file exports those summaries, its jitted functions with literal static parameters, and its
module-level project imports (``exports``); after every file was linted the runner resolves, for each
file, the imported functions its static-argument rules asked about (``join``, following package
re-exports; a file the lint skipped for not mentioning jax is read when its text names a summarized
function, ``skipped_callers``), and lints the calling files again with ``wrappers.PROJECT`` set.
"""

from __future__ import annotations

import ast
import os
import re

from .astutil import ast_walk
from .static_need import static_need
from .wrappers import KeyParam, Summary, _spec_text, module_summaries


def skipped_callers(exported: dict[str, dict], skipped: list[str]) -> dict[str, set[tuple[str, int]]]:
    """The imported functions called by linted files the lint skipped (no mention of jax: a training script
    importing only the project's jitted step), for the files whose text names a summarized function."""
    names = {n for e in exported.values() for n in e.get("functions", ())}
    if not names or not skipped:
        return {}
    alternatives = "|".join(sorted(map(re.escape, names)))
    pattern = re.compile(rf"\b(?:{alternatives})\s*\(")
    out: dict[str, set[tuple[str, int]]] = {}
    for path in skipped:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        if pattern.search(text):
            found = _calls_to_imports(text)
            if found:
                out[path] = found
    return out


def _calls_to_imports(text: str) -> set[tuple[str, int]]:
    from .callgraph import _LIBRARY_HEADS

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    aliases: dict[str, tuple[str, int]] = {}
    for s in tree.body:
        if isinstance(s, ast.ImportFrom):
            for a in s.names:
                aliases[a.asname or a.name] = (f"{s.module}.{a.name}" if s.module else a.name, s.level)
        elif isinstance(s, ast.Import):
            for a in s.names:
                aliases[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], 0)
    aliases = {k: v for k, v in aliases.items() if v[1] or v[0].split(".")[0] not in _LIBRARY_HEADS}
    out = set()
    for n in ast_walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id in aliases:
                out.add(aliases[f.id])
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in aliases:
                t, lv = aliases[f.value.id]
                out.add((f"{t}.{f.attr}", lv))
    return out


def _imports_of(path: str) -> dict:
    """The module-level ``from ... import`` names of a file the lint skipped (one not mentioning jax, e.g. a
    package ``__init__`` re-exporting a wrapper), read when a call needs them."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    aliases = {}
    for s in tree.body:
        if isinstance(s, ast.ImportFrom):
            for a in s.names:
                aliases[a.asname or a.name] = (f"{s.module}.{a.name}" if s.module else a.name, s.level)
    return {"aliases": aliases}


def exports(ctx) -> dict:
    """What the runner's join needs of a module: its summaries, and the project names it imports at module
    level (a package's ``from ._src.loop import while_loop`` re-export, followed by ``join``)."""
    from .callgraph import _LIBRARY_HEADS, index

    functions = {**_jitted_functions(ctx), **module_summaries(ctx)}
    aliases = {name: (q, 0) for name, q in ctx.info.module_aliases.items() if q.split(".")[0] not in _LIBRARY_HEADS}
    aliases.update({name: (t, lv) for name, (lv, t) in index(ctx).relative.items()})
    return {"functions": functions, "aliases": aliases} if functions or aliases else {}


def _jitted_functions(ctx) -> dict[str, Summary]:
    """The module's jitted functions (``@partial(jax.jit, static_argnames=...)``, ``g = jax.jit(f, ...)``) with
    literal static parameters, as summaries for calls from other modules (this module's own calls read the
    decorator directly)."""
    info = ctx.info
    out: dict[str, Summary] = {}
    base = os.path.basename(ctx.filename)
    for name, (def_name, spec) in info.jitted_callables.items():
        fn = info.defs.get(def_name)
        if fn is None or (not spec.argnums and not spec.argnames) or spec.traced_argnums == ():
            continue
        positional = [p.arg for p in fn.args.posonlyargs + fn.args.args]
        how = f"`{name}` is jitted with {_spec_text(spec)} (`{def_name}`, {base}:{fn.lineno})"
        params = tuple(KeyParam(p, positional.index(p) if p in positional else None, "static", how, True, None,
                                _need_at(static_need(fn, p, info.resolve), base))
                       for p in sorted(spec.static_params(fn), key=lambda p: (p not in positional, p)))
        if params:
            out[name] = Summary(name, params)
    return out


def _need_at(need: tuple[str, int] | None, base: str) -> tuple[str, str] | None:
    return (need[0], f"{base}:{need[1]}") if need is not None else None


def join(exported: dict[str, dict], imports: dict[str, set[tuple[str, int]]],
         paths: list[str]) -> dict[str, dict[tuple[str, int], Summary]]:
    """For each file whose static-argument calls reach another linted module's summarized function
    (``imports``: file -> (target, level) its rules asked about; ``exported``: file -> ``exports``), through
    re-exports too: file -> (target, level) -> summary. The runner lints those files again with it
    (``PROJECT``)."""
    from .traced import ModuleMap

    if not imports or not any(e.get("functions") for e in exported.values()):
        return {}
    modules = ModuleMap(paths)
    out: dict[str, dict[tuple[str, int], Summary]] = {}
    read: dict[str, dict] = {}  # skipped file -> its imports: parsed once, however many calls pass through it
    for caller in sorted(imports):
        for target, level in sorted(imports[caller]):
            where, name, lv = caller, target, level
            for _ in range(4):  # follow up to three re-exports
                hit = modules.resolve_name(where, name, lv)
                if hit is None or hit[0] == where:
                    break
                mod = exported.get(hit[0])
                if not mod:
                    mod = read.get(hit[0])
                    if mod is None:
                        mod = read[hit[0]] = _imports_of(hit[0])
                found = mod.get("functions", {}).get(hit[1])
                if found is not None:
                    out.setdefault(caller, {})[(target, level)] = found
                    break
                if hit[1] not in mod.get("aliases", {}):
                    break
                where, (name, lv) = hit[0], mod["aliases"][hit[1]]
    return out
