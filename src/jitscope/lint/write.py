"""Writing fixed source back to the user's file."""

from __future__ import annotations

import os
from pathlib import Path


def write_fixed(path: str, text: str) -> None:
    """Write fixed source back, keeping the file's encoding (UTF-8 unless a coding cookie says otherwise)."""
    import io
    import tokenize

    p = Path(path)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(p.read_bytes()).readline)
    tmp = p.with_name(p.name + ".jitscope-tmp")
    with open(tmp, "w", encoding=encoding.replace("utf-8-sig", "utf-8"), newline="") as fh:
        fh.write(text)
    os.replace(tmp, p)
