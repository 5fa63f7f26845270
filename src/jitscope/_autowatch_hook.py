"""``JITSCOPE=watch`` waits for JAX: the startup hook's first step, standard library only.

``jitscope-autowatch.pth`` (run by ``site`` at every interpreter start) loads this file by its path,
without importing the ``jitscope`` package, only when ``JITSCOPE`` is set. ``install`` then puts one
finder at the front of ``sys.meta_path``; it answers for ``jax`` only, once: it lets the other finders
find JAX, wraps the loader so that, right after ``jax/__init__`` has run, ``jitscope._autowatch``
starts watching, and takes itself off ``sys.meta_path``. A process that never imports JAX (``pip``,
a build tool, ``python -c pass`` under a launcher that sets the variable for everything) imports
nothing of jitscope's or JAX's and writes nothing (issue #23 item 5).

An unknown value (``JITSCOPE=1``: the name may mean something to another tool) is ignored quietly;
``JITSCOPE_VERBOSE=1`` asks for the one line that says so.
"""

import os
import sys

# No other import here (not even ``typing``): this runs at every interpreter start with JITSCOPE set.

ENV = "JITSCOPE"
ENV_VERBOSE = "JITSCOPE_VERBOSE"


def install() -> None:
    """Called by the .pth: start when JAX is imported (now, if it already is), for ``JITSCOPE=watch``."""
    value = os.environ.get(ENV, "")
    mode = value.strip().lower()
    if not mode:
        return
    if mode != "watch":
        if os.environ.get(ENV_VERBOSE, "").strip() not in ("", "0"):
            print(f"jitscope: {ENV}={value!r} not understood (use {ENV}=watch); not watching", file=sys.stderr)
        return
    global _START_DIR
    try:
        _START_DIR = os.getcwd()  # JITSCOPE_DIR (default: here) is relative to where the process started
    except OSError:
        _START_DIR = None
    if "jax" in sys.modules:
        _start()
    elif not any(isinstance(f, JaxImportFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, JaxImportFinder())


_START_DIR = None


def _start() -> None:
    try:
        import jitscope._autowatch as autowatch

        autowatch.maybe_start(_START_DIR)
    except Exception as e:  # noqa: BLE001 - the user's program must run whatever happens here
        print(f"jitscope: {ENV}=watch: {type(e).__name__}: {e}; not watching", file=sys.stderr)


class JaxImportFinder:
    """A ``sys.meta_path`` finder that finds nothing itself: it hands JAX's own spec back with a loader
    that starts watching once ``jax`` has been executed."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
        if name != "jax":
            return None
        try:
            sys.meta_path.remove(self)  # once: the finders below find JAX itself
        except ValueError:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _StartAfterExec(spec.loader)
        return spec


class _StartAfterExec:
    """JAX's own loader, with ``_start`` after ``exec_module`` (everything else is the loader's)."""

    def __init__(self, loader) -> None:  # noqa: ANN001
        self._loader = loader

    def create_module(self, spec):  # noqa: ANN001, ANN201
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:  # noqa: ANN001
        for owner in (module, getattr(module, "__spec__", None)):  # JAX sees its own loader, as without us
            if owner is not None and getattr(owner, "__loader__" if owner is module else "loader", None) is self:
                setattr(owner, "__loader__" if owner is module else "loader", self._loader)
        self._loader.exec_module(module)
        _start()

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._loader, name)
