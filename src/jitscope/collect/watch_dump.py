"""``jitscope watch --dump DIR``: every user compile's jaxpr, StableHLO and optimised HLO, with an index.

Like tlparse for PyTorch: one file per stage and compile, named by compile number and function
(``0003_step.jaxpr.txt``, ``0003_step.stablehlo.mlir``, ``0003_step.hlo.txt``), and
``index.json`` listing them with each compile's function, call site and reason.

How a compile finds its texts: ``_jaxcompat.install_stage_hook`` keeps this thread's latest
lowered jaxpr (by module name) and compiled program; JAX records its backend-compile span
right after, the collector turns it into the user's ``CompileEvent``, and ``on_compile`` (a
session listener) claims that program for it. Programs JAX compiles for itself (eager ops)
are never claimed and never written. Only the kept objects are turned into text, and only
for the user's compiles.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from .. import _jaxcompat as compat
from .._serde import Record
from ..errors import UsageError
from ..model import CompileEvent, Location

STAGES = (("jaxpr", "jaxpr.txt"), ("stablehlo", "stablehlo.mlir"), ("hlo", "hlo.txt"))


@dataclass
class CompileDump(Record):
    """The files written for one compile, relative to the dump directory."""

    index: int
    function: str
    files: dict[str, str] = field(default_factory=dict)  # stage (jaxpr/stablehlo/hlo) -> file name
    call_site: Location | None = None
    reason: str = ""


@dataclass
class DumpIndex(Record):
    """What ``--dump`` wrote: the directory (absolute) and one entry per user compile."""

    directory: str
    compiles: list[CompileDump] = field(default_factory=list)


def check_dump_dir(path: str) -> str:
    """The absolute dump directory, created; ``UsageError`` (one line) when it is a file or unwritable."""
    full = os.path.abspath(path)
    if os.path.exists(full) and not os.path.isdir(full):
        raise UsageError(f"--dump {path}: is a file, not a directory")
    try:
        os.makedirs(full, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--dump {path}: cannot create directory ({e.strerror})") from None
    if not os.access(full, os.W_OK | os.X_OK):
        raise UsageError(f"--dump {path}: directory is not writable")
    return full


class _Latest(threading.local):
    def __init__(self) -> None:
        self.jaxprs: dict[str, Any] = {}  # module name -> closed jaxpr, this thread's latest lowering
        self.compiled: tuple[str, Any, Any] | None = None  # (module name, MLIR module, executable)


def _key(module_name: str) -> str:
    # Lowered as ``jit(<lambda>)``, compiled as the MLIR symbol ``jit__lambda``: compare letters only.
    return re.sub(r"[^A-Za-z0-9]+", "", module_name)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")[:60] or "fn"


class DumpWriter:
    """Writes each user compile's stages into ``directory`` while installed (``start``/``stop``)."""

    def __init__(self, directory: str) -> None:
        self.index = DumpIndex(directory=check_dump_dir(directory))
        self._latest = _Latest()
        self._lock = threading.Lock()
        self._uninstall: Any = None
        self._pid = os.getpid()

    def start(self) -> DumpWriter:
        self._uninstall = compat.install_stage_hook(self._on_lowered, self._on_compiled)
        return self

    def stop(self) -> DumpIndex:
        """Uninstall the hooks and write ``index.json``; the index."""
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None
        path = os.path.join(self.index.directory, "index.json")
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self.index.to_dict(), f, indent=1)
                f.write("\n")
        except OSError:
            pass  # checked writable before the run; a disk filled since must not hide the summary
        return self.index

    def _on_lowered(self, module_name: str, jaxpr: Any) -> None:
        self._latest.jaxprs[_key(module_name)] = jaxpr
        if len(self._latest.jaxprs) > 64:  # programs lowered and never compiled (.lower() alone)
            self._latest.jaxprs.pop(next(iter(self._latest.jaxprs)))

    def _on_compiled(self, module_name: str, module: Any, executable: Any) -> None:
        self._latest.compiled = (module_name, module, executable)

    def on_compile(self, event: CompileEvent) -> None:
        """Session listener: write the files of the program this thread just compiled for ``event``."""
        compiled, self._latest.compiled = self._latest.compiled, None
        if compiled is None:
            return
        name, module, executable = compiled
        texts = {"jaxpr": self._latest.jaxprs.pop(_key(name), None), "stablehlo": module, "hlo": executable}
        entry = CompileDump(event.index, event.function, call_site=event.call_site,
                            reason=event.reason.category if event.reason else "")
        stem = f"{event.index:04d}_{_safe(event.function)}"
        if os.getpid() != self._pid:  # a forked child numbers its compiles from 0 again
            stem = f"{os.getpid()}_{stem}"
        for stage, suffix in STAGES:
            obj = texts[stage]
            if obj is None:
                continue
            try:
                text = compat.optimized_hlo_text(obj) if stage == "hlo" else str(obj)
            except Exception:
                continue
            if not text:
                continue
            fname = f"{stem}.{suffix}"
            try:
                with open(os.path.join(self.index.directory, fname), "w", encoding="utf-8") as f:
                    f.write(text if text.endswith("\n") else text + "\n")
            except OSError:
                continue
            entry.files[stage] = fname
        with self._lock:
            self.index.compiles.append(entry)
