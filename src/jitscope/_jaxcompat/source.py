"""Source info: which files are the user's, user frames of tracebacks, a jit object's options."""

from __future__ import annotations

import os
import sys

# --- inspect: jaxpr source info ---------------------------------------------
# Checked on JAX 0.10.2. ``jax.extend.source_info_util`` is public but does not export
# the user-frame filter, so the filter (``is_user_filename``) comes from jax._src.

_JITSCOPE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the jitscope package
# The demo's case studies (jitscope/gallery) are the user's code of the demo: their lines are shown.
_GALLERY_DIR = f"{_JITSCOPE_DIR}gallery{os.sep}"
_USER_FILE_CACHE: dict[str, bool] = {}


def _jaxlib_dir() -> str | None:
    f = getattr(sys.modules.get("jaxlib"), "__file__", None)
    return os.path.dirname(os.path.abspath(f)) + os.sep if f else None


def _not_library(path: str) -> bool:
    """Fallback user-file test when JAX offers none: not under jax, site-packages or the stdlib."""
    import sysconfig

    jax_dir = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["jax"].__file__ or "")))
    stdlib = sysconfig.get_paths().get("stdlib", "")
    return not (path.startswith(jax_dir + os.sep) or f"{os.sep}site-packages{os.sep}" in path
                or (stdlib and path.startswith(stdlib + os.sep)))


def is_user_file(filename: str) -> bool:
    """True for the user's files: not JAX or jaxlib, not the standard library or frozen code,
    not jitscope itself (except ``jitscope/gallery``, the demo's user code).

    The one user-code filter of jitscope (inspect's source lines, watch's call sites and
    user functions, trace effects); ``<stdin>``, ``<string>`` and IPython cells are user code.
    """
    known = _USER_FILE_CACHE.get(filename)
    if known is None:
        from jax._src import source_info_util

        if filename.startswith("<"):
            known = not filename.startswith("<frozen")
        else:
            path = os.path.abspath(filename)
            jaxlib = _jaxlib_dir()
            jax_says = getattr(source_info_util, "is_user_filename", None)
            known = (bool(jax_says(path) if jax_says is not None else _not_library(path))
                     and (not path.startswith(_JITSCOPE_DIR) or path.startswith(_GALLERY_DIR))
                     and not (jaxlib and path.startswith(jaxlib)))
        _USER_FILE_CACHE[filename] = known
    return known


# --- installed libraries: frames that are not the program's own ----------------
# JAX's filter (``is_user_filename``) excludes only JAX itself and the standard library: numpyro's
# ``svi.py`` or diffrax's ``_integrate.py`` pass it, so a call site found with it alone points into the
# library that jitted. The rule here is about where code lives, not which library it is: a file in a
# directory where the interpreter installs distributions (site-packages, dist-packages) or in the
# standard library is a library file, unless the program being run lives there too (a script or test
# suite inside site-packages, ``pytest --pyargs pkg``): its top-level package is then the program's.
# An editable install's source tree is not in site-packages: it is the developer's own code.
_INSTALL_DIR_NAMES = ("site-packages", "dist-packages")
_LIBRARY_FILE_CACHE: dict[str, bool] = {}
_PROGRAM_PACKAGES: set[str] = set()  # top-level entries of install dirs that hold the program being run


def _install_root(path: str) -> str | None:
    """For a file inside an install directory, that directory's top-level entry holding it
    (``.../site-packages/numpyro``); None for a file outside every install directory."""
    parts = path.split(os.sep)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in _INSTALL_DIR_NAMES:
            return os.sep.join(parts[: i + 2])
    return None


def _stdlib_dirs() -> tuple[str, ...]:
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple(dict.fromkeys(os.path.abspath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if paths.get(k)))


def add_program_path(path: str) -> None:
    """Note a file or directory of the program being run (the watched script, a test module): when it
    lies in an install directory, that top-level package is the program's own code, not a library."""
    root = _install_root(os.path.abspath(path))
    if root is not None and root not in _PROGRAM_PACKAGES:
        _PROGRAM_PACKAGES.add(root)
        _LIBRARY_FILE_CACHE.clear()


def is_library_file(filename: str) -> bool:
    """True for a file of an installed library or the standard library (not the program being run).

    Call sites and definition sites are the program's frames: a user file (``is_user_file``) that is
    not a library file. ``<stdin>``, ``<string>`` and notebook cells are the program's.
    """
    known = _LIBRARY_FILE_CACHE.get(filename)
    if known is None:
        if filename.startswith("<"):
            known = filename.startswith("<frozen")
        else:
            path = os.path.abspath(filename)
            root = _install_root(path)
            if root is not None:
                known = root not in _PROGRAM_PACKAGES
            else:
                known = path.startswith(_stdlib_dirs())
        _LIBRARY_FILE_CACHE[filename] = known
    return known


def is_program_file(filename: str) -> bool:
    """The program's own code: a user file (not JAX, not jitscope) outside every installed library."""
    return is_user_file(filename) and not is_library_file(filename)


class StackCache:
    """User call stacks of jaxpr equations, cached per traceback.

    ``stack(eqn)`` is a tuple of frames ``(file, function, line, column, end_line, end_column)``,
    outermost first, holding only user frames. When ``entry_code`` (the traced function's code
    object) appears in the stack, frames outside it (the caller of jit, jitscope) are dropped,
    so ``stack[0]`` is the line of the traced function that produced the equation.
    Equal tracebacks (every iteration of a Python loop) hit the cache, which keeps the
    bloat detector linear and cheap on 100k-equation jaxprs.
    """

    def __init__(self, entry_code: object = None) -> None:
        self.entry_code = entry_code
        self._by_tb: dict[object, tuple] = {}
        self._by_frame: dict[tuple[object, int], tuple] = {}

    def stack(self, eqn: object) -> tuple:
        tb = getattr(getattr(eqn, "source_info", None), "traceback", None)
        if tb is None:
            return ()
        try:
            hit = self._by_tb.get(tb)
        except TypeError:  # unhashable traceback on some version: no cache
            hit = None
        if hit is not None:
            return hit
        out = self._compute(tb)
        try:
            self._by_tb[tb] = out
        except TypeError:
            pass
        return out

    def _compute(self, tb: object) -> tuple:
        codes, lastis = tb.raw_frames()  # type: ignore[attr-defined]  # innermost first
        frames = []
        for code, lasti in zip(codes, lastis, strict=False):
            if not is_user_file(code.co_filename):
                continue
            key = (code, lasti)
            fr = self._by_frame.get(key)
            if fr is None:
                start, col, end, end_col = tb.code_addr2location(code, lasti)  # type: ignore[attr-defined]
                fr = (code.co_filename, code.co_qualname, start, col, end, end_col)
                self._by_frame[key] = fr
            frames.append(fr)
            if self.entry_code is not None and code is self.entry_code:
                break
        frames.reverse()
        return tuple(frames)


def exception_user_frames(exc: BaseException) -> list[tuple[str, str, int]]:
    """User frames ``(file, function, line)`` of an exception's traceback, outermost first.

    JAX filters its own frames from tracebacks it re-raises; this also walks the
    ``__cause__``/``__context__`` chain, where JAX keeps the unfiltered stack.
    """
    import traceback as _tb

    seen: set[int] = set()
    best: list[tuple[str, str, int]] = []
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        frames = [(f.filename, f.name, f.lineno or 0) for f in _tb.extract_tb(e.__traceback__)
                  if is_user_file(f.filename)]
        if len(frames) > len(best):
            best = frames
        e = e.__cause__ or e.__context__
    return best


def unwrap_jit(fn: object) -> tuple[object, tuple[int, ...], tuple[str, ...]] | None:
    """For a ``jax.jit`` object: (wrapped function, static_argnums, static_argnames); else None.

    Checked on JAX 0.10.2, where the jit object keeps its options in the private ``_jit_info``.
    """
    info = getattr(fn, "_jit_info", None)
    wrapped = getattr(fn, "__wrapped__", None)
    if info is None or wrapped is None:
        return None
    return (wrapped, tuple(getattr(info, "static_argnums", ()) or ()),
            tuple(getattr(info, "static_argnames", ()) or ()))


_OPTION_SKIP = ("fun_sourceinfo", "fun_signature", "user_specified_in_shardings")
_DEFAULT_OPTIONS: list[dict[str, str]] = []


def _option_texts(info: object) -> dict[str, str] | None:
    fields = getattr(type(info), "_fields", None)  # a NamedTuple on JAX 0.6 - 0.10
    if fields is None:
        return None
    return {f: repr(getattr(info, f)) for f in fields if f not in _OPTION_SKIP}


def jit_options_text(info: object) -> str | None:
    """The options a jit object was made with where they differ from ``jax.jit(f)``'s, as text
    (``donate_argnums=(0,), donate_argnames=('x',)``); ``""`` for the defaults; None when unreadable.

    Two jit objects of one function with other options (donation, static arguments, shardings,
    ``keep_unused``, ``inline``, the device or backend, compiler options) are two functions, each with
    its own cache. Checked on JAX 0.10.2: ``PjitInfo`` is a NamedTuple; the defaults are read from a
    plain ``jax.jit`` object, so a field a newer JAX adds is compared without being named here.
    """
    try:
        texts = _option_texts(info)
        if texts is None:
            return None
        if not _DEFAULT_OPTIONS:
            import jax

            default = _option_texts(getattr(jax.jit(_identity), "_jit_info", None))
            if default is None:
                return None
            _DEFAULT_OPTIONS.append(default)
        default = _DEFAULT_OPTIONS[0]
        return ", ".join(f"{k}={v}" for k, v in texts.items() if default.get(k) != v)
    except Exception:  # noqa: BLE001 - options only sharpen advice: unreadable ones say nothing
        return None


def _identity(x: object) -> object:
    return x


def jit_shardings(fn: object) -> dict[str, object]:
    """The ``in_shardings`` / ``out_shardings`` a ``jax.jit`` object was given, as ``jax.jit`` keyword
    arguments (absent when not given or not readable), so a re-jit of its function keeps them.

    Checked on JAX 0.10.2: ``_jit_info`` keeps them as flattened leaves and a treedef; an
    unspecified one is a leaf of JAX's ``UnspecifiedValue`` type.
    """
    import jax

    info = getattr(fn, "_jit_info", None)
    out: dict[str, object] = {}
    for key in ("in_shardings", "out_shardings"):
        leaves = getattr(info, f"{key}_leaves", None)
        treedef = getattr(info, f"{key}_treedef", None)
        if leaves is None or treedef is None or any(type(v).__name__ == "UnspecifiedValue" for v in leaves):
            continue
        if key == "in_shardings" and not getattr(info, "user_specified_in_shardings", True):
            continue
        try:
            out[key] = jax.tree_util.tree_unflatten(treedef, list(leaves))
        except Exception:  # noqa: BLE001 - a layout this JAX spells differently: re-jit without it
            continue
    return out
