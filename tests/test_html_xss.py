"""HTML reports cannot run script (#9 item 3): a payload in every string and number of every result kind.

Each kind's sample result (``tests/gold/<kind>.json``) has every string field, list item, dict key
and dict value replaced by a script payload (records the sample lacks are built from their type
hints and filled too), is saved, and rendered by ``jitscope report -o page.html`` in a real
subprocess; headless chromium then loads the page and the DOM it built is searched for anything a
payload would create. Number fields get a payload too: ``jitscope report`` refuses such a file
(its schema check), and the renderer is also fed it directly, so the escaping is tested on its own.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import dump_dom
from result_walk import fill, number_paths

from jitscope.render import render
from jitscope.results import load_result
from jitscope.schema.check import Invalid, check

pytestmark = pytest.mark.browser
GOLD = Path(__file__).resolve().parent / "gold"
KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint")
MARK = "xss"
# Fields whose value picks a branch of the layout (an enum): kept in one variant so the rest of the
# page (the "ok" inspect layout, say) is rendered with payloads too, replaced in the other.
ENUMS = frozenset({"status", "severity", "category", "growth", "unit", "kind"})


def payload(n: int) -> str:
    # Closes a <script>, an attribute (both quotes) and a comment, then adds elements and a handler
    # that chromium would build into the DOM (ids xss...) if any of it reached the page unescaped.
    return (f"</script>--><b id={MARK}b{n}>x</b>\"'><img id={MARK}i{n} src=x "
            f"onerror=\"document.title='pwned{n}'\"><script>document.title='pwned{n}'</script>")


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []
        self.title = ""
        self._in_title = False
        self.csp = ""
        self._titles = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title" and not self._titles:  # the page's; SVG <title> tooltips come later
            self._in_title = True
        if tag == "title":
            self._titles += 1
        if (a.get("id") or "").startswith(MARK):
            self.bad.append(f"<{tag} id={a['id']}>")
        for k, _ in attrs:
            if k.startswith("on"):
                self.bad.append(f"<{tag} {k}=...>")
        if tag == "script" and a.get("id") != "jitscope-data":
            self.bad.append("<script> other than the data block")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content") or ""

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def check_dom(dom: str, kind: str) -> None:
    parser = _Dom()
    parser.feed(dom)
    assert not parser.bad, f"{kind}: a payload reached the DOM: {parser.bad[:5]}"
    assert parser.title == f"jitscope {kind} report", f"{kind}: title changed to {parser.title!r}"
    assert parser.csp == "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert "pwned" not in parser.title


def _strings(kind: str, keep: frozenset[str]):
    counter = iter(range(10**6))
    places: list[str] = []

    def value_for(path, old):
        places.append(path)
        return payload(next(counter))

    return fill(load_result(GOLD / f"{kind}.json"), value_for, keep=keep), places


def _valid_strings(kind: str):
    """Payloads in every string the schema lets hold any text; enum-like fields (which the data
    layer refuses with anything else) are learned from the schema check, one at a time."""
    keep = ENUMS
    for _ in range(50):
        result, places = _strings(kind, keep)
        try:
            check(result.to_dict(), kind)
            return result, places
        except Invalid as e:
            field_path = e.path.split("</script>", 1)[0]  # a payload as a dict key: its dict is the field
            names = [re.sub(r"\[\d+\]", "", part) for part in field_path.split(".")]
            names = [n for n in names if n]
            assert names and names[-1] not in keep, e
            keep = keep | {names[-1]}
    raise AssertionError("the schema refuses too many fields")


@pytest.mark.parametrize("kind", KINDS)
def test_string_payloads_never_run(kind, tmp_path):
    """Through the whole path a shared file takes: saved, checked, rendered by ``jitscope report``."""
    result, places = _valid_strings(kind)
    assert len(places) > 10, places  # the walk reached the fields
    saved = tmp_path / f"{kind}.json"
    result.save(saved)
    out = tmp_path / f"{kind}.html"
    proc = subprocess.run([sys.executable, "-m", "jitscope", "report", str(saved), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert f"<b id={MARK}" not in html and "<script>document" not in html
    # The embedded JSON parses back to the very result (escaping "<" as \u003c loses nothing).
    data = html.split('id="jitscope-data">', 1)[1].rsplit("</script>", 1)[0]
    assert json.loads(data) == json.loads(saved.read_text(encoding="utf-8"))
    check_dom(dump_dom(out), kind)


@pytest.mark.parametrize("keep", [ENUMS, frozenset()], ids=["enums-kept", "everything"])
@pytest.mark.parametrize("kind", KINDS)
def test_renderer_escapes_every_string(kind, keep, tmp_path):
    """Straight into the renderer (a result built in Python is not schema-checked): even enum fields."""
    result, places = _strings(kind, keep)
    assert len(places) > 10, places
    out = tmp_path / f"{kind}.html"
    out.write_text(render(result, "html"), encoding="utf-8")
    assert f"<b id={MARK}" not in out.read_text(encoding="utf-8")
    check_dom(dump_dom(out), kind)


@pytest.mark.parametrize("kind", KINDS)
def test_number_payloads_never_run(kind, tmp_path):
    base = load_result(GOLD / f"{kind}.json")
    paths = number_paths(base)
    assert paths, kind
    rendered = []
    for target in paths:
        try:
            bad = fill(base, lambda p, old, t=target: payload(0) if p == t else old, numbers=True)
        except (TypeError, ValueError):  # the record itself refuses it (Timing computes its median)
            continue
        saved = tmp_path / "one.json"
        saved.write_text(bad.to_json(), encoding="utf-8")
        # Through the data layer: a string where the schema wants a number is refused, one line.
        try:
            load_result(saved)
        except Exception as e:  # noqa: BLE001 - the refusal is what is asserted
            assert type(e).__name__ == "UsageError" and "\n" not in str(e), (target, e)
        # Straight into the renderer: escaped if it renders; a formatting TypeError/ValueError runs no script.
        try:
            html = render(bad, "html")
        except (TypeError, ValueError):
            continue
        assert f"<b id={MARK}" not in html, f"{kind}: {target} interpolated unescaped"
        rendered.append(target)
    known = {"inspect": {"jaxpr.constants", "hlo.fusion_count"}, "watch": {"persistent_cache.rerun_cacheable_compiles"}}
    assert known.get(kind, set()) <= set(rendered), set(known[kind]) - set(rendered)
    # All the numbers that render one at a time, at once, in chromium.
    together = fill(base, lambda p, old: payload(0) if p in rendered else old, numbers=True)
    page = tmp_path / f"{kind}.html"
    try:
        page.write_text(render(together, "html"), encoding="utf-8")
    except (TypeError, ValueError):
        pytest.skip("no combination renders")  # pragma: no cover - each alone rendered above
    check_dom(dump_dom(page), kind)
