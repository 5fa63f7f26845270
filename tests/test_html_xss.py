"""Script injection: a payload in every field of every result kind never runs and never becomes markup.

Each kind's document is built from its schema with every property present and every free string
set to a payload that tries to open an element, close the embedded JSON's <script>, and run script.
It is rendered by the real ``jitscope report`` and loaded in headless Debian chromium.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from browser import dump_dom
from schema_instances import instance


class _Tags(HTMLParser):
    """Counts what the browser really built: img elements, scripts (by type), event-handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.img, self.scripts, self.handlers, self.text = 0, [], [], ""

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.img += tag == "img"
        if tag == "script":
            self.scripts.append(dict(attrs).get("type", ""))
        self.handlers += [name for name, _ in attrs if name.startswith("on")]

    def handle_data(self, data):  # noqa: ANN001
        self.text += data


KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint")


@pytest.mark.browser
@pytest.mark.parametrize("kind", KINDS)
def test_payload_in_every_field_stays_text(cli, tmp_path, kind):
    doc = instance(kind)
    src, out = tmp_path / f"{kind}.json", tmp_path / f"{kind}.html"
    src.write_text(json.dumps(doc))
    p = cli("report", str(src), "-o", str(out))
    assert p.returncode == 0, p.stderr
    html = out.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    head, _, embedded = html.partition('id="jitscope-data">')
    assert "<img" not in head and "<script>document" not in head  # every interpolation escaped
    assert "<" not in embedded.rsplit("</script>", 1)[0]  # nothing can close the data script early
    dom = dump_dom(out)
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert title == f"jitscope {kind} report"  # no payload ran (it would set the title)
    tags = _Tags()
    tags.feed(dom)
    assert tags.img == 0 and tags.scripts == ["application/json"]  # no payload became an element
    assert not tags.handlers  # no on* attribute anywhere
    assert tags.text.count("document.title='pwned'") >= 5  # the payloads are there, as text
    data = re.search(r'<script type="application/json" id="jitscope-data">(.*?)</script>', dom, re.S).group(1)
    assert json.loads(data) == json.loads(src.read_text())  # the embedded JSON arrives intact
