"""Whether ``jax_disable_jit`` was on while the program ran: every ``jax.jit`` then runs its function op by op.

``jax.config.jax_disable_jit`` is JAX's own (public) flag: with it on, a jitted function is called as plain Python,
each ``jax.numpy`` operation dispatched and compiled eagerly on its own; nothing is traced or compiled as one
program, so watch sees no compile of the program's functions at all. ``JitDisabledProbe`` reads the flag when
the watch starts and when it ends (a ``jax.config.update("jax_disable_jit", True)`` left on), and names the line of
the watched script that sets the option (``jax_disable_jit`` / ``disable_jit``) when there is one. A
``with jax.disable_jit():`` block that closed before the end is not seen (a deliberate, scoped debugging choice).

Cost: two reads of a config value; nothing per call.
"""

from __future__ import annotations

import linecache
import os
import re

from ..model import Location


def _flag() -> bool:
    try:
        import jax

        return bool(jax.config.jax_disable_jit)
    except Exception:  # noqa: BLE001 - a JAX without the flag: never on
        return False


class JitDisabledProbe:
    """``on_at_start`` / ``on_at_end``: the flag when the watch started and ended; ``location``: the main file's
    first line naming it."""

    def __init__(self) -> None:
        self.on_at_start = False
        self.on_at_end: bool | None = None
        self.location: Location | None = None
        self.program: str | None = None  # the watched script (set by the watch session)

    def install(self) -> JitDisabledProbe:
        self.on_at_start = _flag()
        return self

    def uninstall(self) -> None:
        self.read_end()

    def read_end(self) -> None:
        if self.on_at_end is not None:
            return
        self.on_at_end = _flag()
        if self.on_at_end:
            self.location = _naming_line(self.program)


def _naming_line(path: str | None) -> Location | None:
    if not path or not os.path.isfile(path):
        return None
    path = os.path.abspath(path)
    for i, text in enumerate(linecache.getlines(path), 1):
        if _SETS.search(text.split("#", 1)[0]):
            return Location(path, i, function="<module>")
    return None


# How a script turns the flag on: config.update("jax_disable_jit", True), the environment variable, or setting
# the config attribute (prose that mentions it, a docstring, is not a naming line).
_SETS = re.compile(r"""['"]jax_disable_jit['"]|['"]JAX_DISABLE_JIT['"]|\.jax_disable_jit\s*=[^=]""")
