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

With ``passes`` (a callable the command passes in, so this collector imports no analyzer), each
backend compile also runs under ``jax.profiler`` (``collect.compile_passes``) and the callable turns
its events into the record written as ``0003_step.passes.json``: the compile's time by XLA pass.
Without ``--dump`` nothing is profiled, so watch's overhead is unchanged.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import _jaxcompat as compat
from .._files import say_once
from .._serde import Record
from ..errors import UsageError
from ..model import CompileEvent, Location
from .compile_passes import CompileTrace, profile_compile, read_pending

STAGES = (("jaxpr", "jaxpr.txt"), ("stablehlo", "stablehlo.mlir"), ("hlo", "hlo.txt"))


@dataclass
class CompileDump(Record):
    """The files written for one compile, relative to the dump directory."""

    index: int
    function: str
    files: dict[str, str] = field(default_factory=dict)  # stage (jaxpr/stablehlo/hlo/passes) -> file name
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
        self.trace: CompileTrace | None = None  # the profiler's events of that compile (``passes``)


def _key(module_name: str) -> str:
    # Lowered as ``jit(<lambda>)``, compiled as the MLIR symbol ``jit__lambda``: compare letters only.
    return re.sub(r"[^A-Za-z0-9]+", "", module_name)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")[:60] or "fn"


class DumpWriter:
    """Writes each user compile's stages into ``directory`` while installed (``start``/``stop``).

    ``passes(trace) -> dict``, when given, profiles every backend compile and turns its
    ``CompileTrace`` (``backend_compile_s`` set from the ``CompileEvent``) into the JSON written as
    ``<stem>.passes.json`` (None: nothing written).
    """

    def __init__(self, directory: str, passes: Callable[[CompileTrace], dict[str, Any] | None] | None = None) -> None:
        self.index = DumpIndex(directory=check_dump_dir(directory))
        self._passes = passes
        self._profiles: str | None = None  # one temporary directory for every compile's profile
        self._latest = _Latest()
        self._lock = threading.Lock()
        self._uninstall: Any = None
        self._pid = os.getpid()
        self._said = False

    def start(self) -> DumpWriter:
        around = None
        if self._passes is not None:
            self._profiles = tempfile.mkdtemp(prefix="jitscope-dump-profiles-")
            around = self._around_compile
        self._uninstall = compat.install_stage_hook(self._on_lowered, self._on_compiled, around)
        return self

    def _around_compile(self, module_name: str, compile_fn: Callable[[], Any]) -> Any:
        # Every backend compile is profiled (JAX's own eager-op programs too: which compiles are the
        # user's is known only after), but only the claimed ones are read, after JAX's span closed.
        executable, self._latest.trace = profile_compile(compile_fn, module_name, log_root=self._profiles)
        return executable

    def stop(self) -> DumpIndex:
        """Uninstall the hooks and write ``index.json``; the index."""
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None
        if self._profiles is not None:
            shutil.rmtree(self._profiles, ignore_errors=True)
            self._profiles = None
        path = os.path.join(self.index.directory, "index.json")
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(self.index.to_dict(), f, indent=1)
                f.write("\n")
        except OSError as e:  # checked writable before the run; a disk filled since must not hide the summary
            self._refused("index.json", e)
        return self.index

    def _refused(self, fname: str, e: OSError) -> None:
        """Say once per dump (the first file refused) that the dump is incomplete."""
        if not self._said:
            self._said = True
            say_once(f"jitscope: --dump {self.index.directory}: cannot write {fname}: {e.strerror or e}; the dump "
                     "is incomplete from there on (index.json lists what was written, when it could be written)")

    def _on_lowered(self, module_name: str, jaxpr: Any) -> None:
        self._latest.jaxprs[_key(module_name)] = jaxpr
        if len(self._latest.jaxprs) > 64:  # programs lowered and never compiled (.lower() alone)
            self._latest.jaxprs.pop(next(iter(self._latest.jaxprs)))

    def _on_compiled(self, module_name: str, module: Any, executable: Any) -> None:
        self._latest.compiled = (module_name, module, executable)

    def on_compile(self, event: CompileEvent) -> None:
        """Session listener: write the files of the program this thread just compiled for ``event``."""
        compiled, self._latest.compiled = self._latest.compiled, None
        trace, self._latest.trace = self._latest.trace, None
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
            if self._write(f"{stem}.{suffix}", text):
                entry.files[stage] = f"{stem}.{suffix}"
        if trace is not None and self._passes is not None:
            self._write_passes(read_pending(trace), event.phases.get("compile"), stem, entry)
        with self._lock:
            self.index.compiles.append(entry)

    def _write_passes(self, trace: CompileTrace, seconds: float | None, stem: str, entry: CompileDump) -> None:
        if seconds is not None:  # JAX's span closes after the profiled call: the event has it
            trace.backend_compile_s = seconds
        try:
            record = self._passes(trace) if self._passes is not None else None
        except Exception:  # noqa: BLE001 - a breakdown that fails must not break the user's program
            return
        if record and self._write(f"{stem}.passes.json", json.dumps(record, indent=1)):
            entry.files["passes"] = f"{stem}.passes.json"

    def _write(self, fname: str, text: str) -> bool:
        """Write one file of the dump; False when the disk refused (the run goes on without it, and says so
        once: a dump cut short by a full disk is never silent)."""
        path = os.path.join(self.index.directory, fname)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text if text.endswith("\n") else text + "\n")
        except OSError as e:
            with contextlib.suppress(OSError):
                os.unlink(path)  # never a half-written stage file
            self._refused(fname, e)
            return False
        return True
