"""``inspect --dump DIR``: the program at every stage, as numbered, readable files.

Like seed 004's ``JAX_DUMP_IR_TO`` / XLA dumps, but one function, fixed names, in stage order:
``01_jaxpr.txt``, ``02_stablehlo.mlir``, ``03_hlo.before.txt``, ``04_hlo.after.txt``,
``05_fusions.dot`` and ``06_fusions.svg`` (only where Graphviz ``dot`` is on PATH).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..errors import UsageError
from .lowering import Stages

# Every file ``write_dump`` may write, so a caller can check them before anything is measured.
DUMP_FILES = ("01_jaxpr.txt", "02_stablehlo.mlir", "03_hlo.before.txt", "04_hlo.after.txt",
              "05_fusions.dot", "06_fusions.svg")


def write_dump(stages: Stages, directory: str | Path, fusion_graph: str | None = None) -> list[str]:
    """Write the stage files into ``directory`` (created); return the paths written.

    ``fusion_graph`` is the Graphviz text of the optimised HLO's fusions (``analyze.hlo.fusion_dot``),
    made by the caller: a collector writes what it is given and analyses nothing.
    """
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--dump {directory}: cannot create directory ({e.strerror})") from None
    files = [("01_jaxpr.txt", stages.jaxpr_text), ("02_stablehlo.mlir", stages.stablehlo_text),
             ("03_hlo.before.txt", stages.hlo_before_text), ("04_hlo.after.txt", stages.hlo_after_text)]
    if fusion_graph:
        files.append(("05_fusions.dot", fusion_graph))
    written = []
    for name, text in files:
        if not text:
            continue
        path = out / name
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        written.append(str(path))
    dot = shutil.which("dot")
    if dot and (out / "05_fusions.dot").exists():
        svg = out / "06_fusions.svg"
        try:
            subprocess.run([dot, "-Tsvg", str(out / "05_fusions.dot"), "-o", str(svg)], check=True,
                           capture_output=True, timeout=60)
            written.append(str(svg))
        except (subprocess.SubprocessError, OSError):
            pass  # the DOT file is still there; SVG is a convenience
    return written
