"""Reports sized to their content: real-sized gold pages fit three screens of a 1,400 px window.

The gold pages of ``test_html_gold.SIZED`` (a 12-compile watch of an equinox training script, an
inspect of its 6-layer model with the compile passes) are laid out by headless chromium at 1,400 px
wide: each must be under 4,000 px tall, with no table wider than the window (details folded, as a
reader first sees the page). The height is read twice: the page's own scroll size (a copy of the
page with one measuring script; the report's policy forbids scripts) and a 1,400 x 4,000 screenshot
whose bottom must be blank, i.e. the whole page is in it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import _run, screenshot
from test_html_gold import GOLD, SIZED

WIDTH, MAX_HEIGHT = 1400, 4000


def page_size(html: Path, tmp_path: Path) -> tuple[int, int]:
    """(scroll width, scroll height) of the page laid out in a WIDTH px wide window."""
    text = html.read_text(encoding="utf-8")
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)  # let the measuring script run
    text = text.replace("</body>", "<script>document.title = 'SIZE ' + document.documentElement.scrollWidth + "
                                   "' ' + document.documentElement.scrollHeight;</script></body>")
    probe = tmp_path / f"probe-{html.name}"
    probe.write_text(text, encoding="utf-8")
    out = _run([f"--window-size={WIDTH},900", "--dump-dom", probe.resolve().as_uri()]).stdout
    m = re.search(r"<title>SIZE (\d+) (\d+)</title>", out)
    assert m, out[:500]
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize("kind", SIZED)
def test_real_sized_page_fits_three_screens(kind, tmp_path):
    html = GOLD / f"{kind}.html"
    width, height = page_size(html, tmp_path)
    assert width <= WIDTH, f"{kind}: {width} px wide in a {WIDTH} px window (a table or listing overflows)"
    assert height < MAX_HEIGHT, f"{kind}: {height} px tall at {WIDTH} px wide (at most {MAX_HEIGHT})"
    image = pytest.importorskip("PIL.Image")
    png = screenshot(html, tmp_path / f"{kind}.png", size=f"{WIDTH},{MAX_HEIGHT}")
    with image.open(png) as im:
        rgb = im.convert("RGB")
        bottom = rgb.crop((0, MAX_HEIGHT - 60, WIDTH, MAX_HEIGHT))
        assert bottom.getcolors(1) is not None, f"{kind}: the page is cut off at the screenshot's {MAX_HEIGHT} px"
        ink = rgb.crop((0, 0, WIDTH, height)).getcolors(1)
        assert ink is None, f"{kind}: the screenshot is blank"  # more than one colour: the page was drawn


def test_the_sized_inputs_are_what_they_claim():
    """The watch ran 12 compiles; the inspect saw a 6-layer model, summarised by structure."""
    import json

    watch = json.loads((GOLD / "watch_training.json").read_text(encoding="utf-8"))
    assert len(watch["events"]) == 12 and watch["fixes"] and watch["findings"]
    inspect = json.loads((GOLD / "inspect_model.json").read_text(encoding="utf-8"))
    leaves = [leaf["path"] for leaf in inspect["signature"]["leaves"]]
    assert sum(p.endswith(".weight") for p in leaves) == 6 and inspect["passes"]
    page = (GOLD / "inspect_model.html").read_text(encoding="utf-8")
    visible = page.split('id="jitscope-data"', 1)[0]
    assert "model=MLP(layers=[6 x Linear(weight=f32[32,32], bias=f32[32])])" in visible
    assert "<details><summary>all 14 leaves of the arguments</summary>" in visible
