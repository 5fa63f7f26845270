"""Page skeleton, stylesheet and small HTML builders shared by every section renderer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...results import Result

CSS = """
:root{--fg:#1d2430;--muted:#5b6575;--line:#dde2ea;--bg:#fff;--soft:#f5f7fa;--accent:#3b6fd4;--bad:#c0392b;--good:#2f9e6b}
*{box-sizing:border-box}body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:20px 32px;border-bottom:1px solid var(--line);background:var(--soft)}
header h1{margin:0 0 4px;font-size:22px}header .sub{color:var(--muted)}
nav{padding:8px 32px;border-bottom:1px solid var(--line);font-size:13px}nav a{margin-right:14px;color:var(--accent);text-decoration:none}
main{padding:8px 32px 40px;max-width:1100px}section{margin:26px 0}h2{font-size:18px;margin:0 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.lesson{margin:10px 0;padding:8px 12px;border-left:4px solid var(--accent);background:#eef3fc}
.warn{border-left-color:var(--bad);background:#fbeeee}.ok{border-left-color:var(--good);background:#edf7f1}
.muted{color:var(--muted)}code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);padding:8px;overflow:auto;max-height:420px}
.chart{display:block;margin:8px 0;max-width:100%;height:auto}.chart-title{font-weight:600;font-size:13px;fill:var(--fg)}
.chart-label{font-size:12px;fill:var(--fg)}.chart-value,.chart-tick{font-size:11px;fill:var(--muted)}
.chart-frame{fill:none;stroke:var(--line)}.chart-grid{stroke:var(--line);stroke-dasharray:3 3}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;background:var(--soft);border:1px solid var(--line)}
.sev-error{color:var(--bad);font-weight:600}.sev-warning{color:#b36b00;font-weight:600}.sev-info{color:var(--muted)}
footer{padding:16px 32px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}
table{display:block;max-width:100%;overflow-x:auto}td{overflow-wrap:break-word;max-width:640px}td pre{white-space:pre-wrap;margin:0}
details{margin:6px 0}details>summary{cursor:pointer;color:var(--accent);font-size:13px}details[open]>summary{margin-bottom:4px}
"""


@dataclass
class Section:
    """One titled block of the report; ``body`` is trusted HTML built with the helpers below."""

    title: str
    body: str

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "section"


def esc(value: Any) -> str:
    return escape("" if value is None else str(value))


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Iterable[int] = ()) -> str:
    """An HTML table; cells are escaped text unless given as ``Raw``; ``numeric`` columns right-align."""
    num = set(numeric)
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            content = cell.html if isinstance(cell, Raw) else esc(cell)
            cells.append(f'<td class="num">{content}</td>' if i in num else f"<td>{content}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


@dataclass(frozen=True)
class Raw:
    """Pre-built HTML to put in a table cell unescaped."""

    html: str


def details(summary: str, body: str) -> str:
    """``body`` (trusted HTML) folded under a one-line ``summary`` (text) the reader clicks to open."""
    return f"<details><summary>{esc(summary)}</summary>{body}</details>"


def lesson(text: str, tone: str = "") -> str:
    return f'<div class="lesson {tone}">{esc(text)}</div>'


def pre(text: str, limit: int = 200_000) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return f"<pre>{esc(text)}</pre>"


CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def page(result: Result, sections: list[Section], data_json: str) -> str:
    env = getattr(result, "env", None)
    bits = []
    if env is not None:
        if getattr(env, "jax", ""):
            bits.append(f"JAX {env.jax} on {env.backend or '?'} ({', '.join(env.devices) or '?'})")
        bits.append(f"Python {env.python}")
        if env.cpu_count:
            bits.append(f"{env.cpu_count} CPUs")
        bits.append(f"jitscope {env.jitscope}")
    nav = "".join(f'<a href="#{s.anchor}">{esc(s.title)}</a>' for s in sections)
    body = "".join(f'<section id="{s.anchor}"><h2>{esc(s.title)}</h2>{s.body}</section>' for s in sections)
    # Inside <script> only "<" can end or re-open the element ("</script>", "<!--<script>"): escape
    # every "<" (and ">" / "&" for good measure) as a JSON unicode escape, which parses back the same.
    safe_json = data_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        # No script may run and nothing may load: styles inline, images only as data: URIs.
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        f"<title>jitscope {esc(result.kind)} report</title><style>{CSS}</style></head><body>"
        f"<header><h1>jitscope {esc(result.kind)} report</h1><div class=\"sub\">{esc(' · '.join(bits))}</div></header>"
        f"<nav>{nav}</nav><main>{body}</main>"
        "<footer>Every number on this page was measured in this run; the JSON behind it is embedded "
        "in this file (script#jitscope-data) and re-renders with <code>jitscope report</code>.</footer>"
        f"<script type=\"application/json\" id=\"jitscope-data\">{safe_json}</script></body></html>\n"
    )
