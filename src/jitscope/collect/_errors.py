"""One-line error text shared by the collectors (JAX errors run to many lines)."""

from __future__ import annotations


def error_line(e: BaseException) -> str:
    """``Type: first line of the message``, or just ``Type`` when the message is empty."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__
