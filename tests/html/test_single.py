"""The self-contained deck (jaxdeck.html.single, `build --self-contained`): one HTML file, copied
alone into an empty folder, presents in a real Chromium with no request but the page itself."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.html.single import self_contained, write_single
from support import DECKS, deck_id, run_cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "single"

#: what a deck shows once open: reveal.js ready, its slides, KaTeX's output and the fonts of every
#: slide with math (visited in turn: a face loads when a shown slide uses it), its images, its backgrounds
LOOK = """async () => {
  const pictures = [...document.images];
  await Promise.all(pictures.map(img => img.decode().catch(() => null)));
  const math = [...document.querySelectorAll('.reveal .slides section')]
    .filter(s => !s.querySelector('section') && s.querySelector('.katex'));
  const leaves = [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'));
  for (const slide of [...math, leaves[leaves.length - 1]]) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    await new Promise(done => setTimeout(done, 50));
    await document.fonts.ready;
  }
  const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '').startsWith('KaTeX'));
  return {
    ready: Reveal.isReady(),
    slides: Reveal.getTotalSlides(),
    katex: document.querySelectorAll('.katex').length,
    katexLoaded: faces.filter(f => f.status === 'loaded').map(f => f.family),
    katexMain: document.fonts.check('16px KaTeX_Main'),
    fontErrors: [...document.fonts].filter(f => f.status === 'error').map(f => f.family),
    images: pictures.length,
    broken: pictures.filter(img => !(img.naturalWidth > 0)).map(img => img.getAttribute('alt') || img.src.slice(0, 40)),
  };
}"""


@contextlib.contextmanager
def offline(browser, html: Path):
    """``html`` opened from file:// with the network off; yields (page, asked): every request
    but the page's own is counted in ``asked`` and aborted (``data:`` URIs are no requests)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    own = html.resolve().as_uri()
    asked: list[str] = []

    def route(request_route):
        if request_route.request.url == own:
            request_route.continue_()
        else:
            asked.append(request_route.request.url)
            request_route.abort()

    context.route("**/*", route)
    context.set_offline(True)
    page = context.new_page()
    page.on("request", lambda r: asked.append(r.url) if r.url != own and not r.url.startswith("data:") else None)
    try:
        page.goto(own, wait_until="load")
        yield page, asked
    finally:
        context.close()


def alone(single: Path, folder: Path) -> Path:
    """``single`` copied into the empty folder ``folder``, with nothing beside it."""
    folder.mkdir(parents=True)
    return Path(shutil.copy(single, folder / single.name))


@pytest.mark.heavy
@pytest.mark.parametrize("deck", DECKS, ids=deck_id)
def test_the_single_file_presents_alone_with_the_network_off(deck, built, browser, tmp_path):
    from jaxdeck.browser import script
    from jaxdeck.pages import open_deck

    outputs, _ = built(deck)
    write_single(outputs.html, outputs.single, deck)
    single = alone(outputs.single, tmp_path / "alone")
    with open_deck(browser, outputs.html) as (page, _):
        normal = page.evaluate(LOOK)
    with offline(browser, single) as (page, asked):
        page.wait_for_function(script("reveal-ready.js"), timeout=15000)
        seen = page.evaluate(LOOK)
        assert not asked, f"the single file asked for {asked[:5]}"
    assert seen["ready"] and seen["slides"] == normal["slides"] > 0
    assert seen["katex"] == normal["katex"]
    if seen["katex"]:
        assert seen["katexLoaded"] and seen["katexMain"], seen
    assert not seen["fontErrors"], seen["fontErrors"]
    assert seen["images"] == normal["images"] and not seen["broken"], seen["broken"]
    if deck.stem == "example":  # the deck of the format itself has math, pictures, columns and notes
        assert seen["katex"] and seen["images"]
        assert page_holds(single, ('class="jd-columns"', '<aside class="notes">'))


def page_holds(html: Path, parts: tuple[str, ...]) -> bool:
    text = html.read_text(encoding="utf-8")
    return all(part in text for part in parts)


@pytest.mark.heavy
def test_files_a_plugin_loads_at_run_time_are_served_from_the_page(browser, tmp_path):
    write_single(FIXTURE / "page.html", tmp_path / "page.html")
    single = alone(tmp_path / "page.html", tmp_path / "alone")
    with offline(browser, single) as (page, asked):
        seen = page.evaluate("""async () => {
          const data = await window.pluginData;
          const dot = document.getElementById('dot');
          await dot.decode();
          await document.getElementById('photo').decode();
          const probe = getComputedStyle(document.getElementById('probe'));
          return {data: data.answer, dot: dot.naturalWidth, photo: document.getElementById('photo').naturalWidth,
                  color: probe.color, border: probe.borderTopColor, cursor: probe.cursor.slice(0, 15),
                  inline: window.inlineRan, title: document.title, text: document.getElementById('probe').textContent,
                  background: document.querySelector('section').getAttribute('data-background-image').slice(0, 18),
                  link: document.querySelector('a').getAttribute('href')};
        }""")
        assert not asked, f"the single file asked for {asked}"
    assert seen == {"data": 42, "dot": 16, "photo": 120, "color": "rgb(1, 2, 3)", "border": "rgb(4, 5, 6)",
                    "cursor": 'url("data:image', "inline": "</script> stays",
                    "title": "Fixture: a page with files beside it — “quotes” & entities",
                    "text": "probe <text> é", "background": "data:image/svg+xml",
                    "link": "assets/plugin/data.json"}
    text = single.read_text(encoding="utf-8")
    assert 'rel="icon" href="data:image/svg+xml;base64,' in text and "color: rgb(7, 8, 9)" not in text


def test_imports_and_urls_in_css_are_read_relative_to_the_stylesheet(tmp_path):
    made = self_contained(FIXTURE / "page.html")
    assert "assets/plugin/imported.css" in made.files and "images/photo.svg" in made.files
    assert "url(images/photo.svg)" not in made.html and "../images/photo.svg" not in made.html
    assert 'href="assets/page.css"' not in made.html and '<style id="theme">' in made.html


def test_a_missing_file_is_one_line_naming_the_deck_and_the_file(tmp_path):
    folder = tmp_path / "html"
    shutil.copytree(FIXTURE, folder)
    (folder / "images" / "photo.svg").unlink()
    with pytest.raises(DeckError) as caught:
        self_contained(folder / "page.html", Path("slides/talk.md"))
    message = str(caught.value)
    assert "\n" not in message and message.startswith("slides/talk.md: ")
    assert "images/photo.svg" in message and "is missing" in message


def test_a_remote_file_the_page_loads_is_an_error(tmp_path):
    page = tmp_path / "page.html"
    page.write_text('<!DOCTYPE html><html><head><script src="https://cdn.example.org/x.js"></script></head></html>')
    with pytest.raises(DeckError, match="cannot inline https://cdn.example.org/x.js: it is remote"):
        self_contained(page, Path("slides/talk.md"))


DECK = """# A talk

$$e^{i\\pi} + 1 = 0$$

![stages](images/dot.svg)

Note: what to say
"""


@pytest.mark.heavy
def test_cli_self_contained_is_remade_only_when_out_of_date(tmp_path):
    slides = tmp_path / "slides"
    (slides / "images").mkdir(parents=True)
    shutil.copy(FIXTURE / "assets" / "plugin" / "img" / "dot.svg", slides / "images" / "dot.svg")
    (slides / "talk.md").write_text(DECK, encoding="utf-8")

    first = run_cli("build", "--self-contained", "--out", "build", "slides/talk.md", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    single = tmp_path / "build" / "single" / "talk.html"
    assert "single file" in first.stdout and single.is_file()
    assert "data:font/woff2;base64," in single.read_text(encoding="utf-8")
    written = single.stat().st_mtime_ns

    again = run_cli("build", "--self-contained", "--out", "build", "slides/talk.md", cwd=tmp_path)
    assert again.returncode == 0 and "slides/talk.md: up to date" in again.stdout, again.stdout + again.stderr
    assert single.stat().st_mtime_ns == written

    (tmp_path / "build" / "html" / "assets" / "katex" / "dist" / "fonts" / "KaTeX_Main-Regular.woff2").unlink()
    broken = run_cli("build", "--self-contained", "--out", "build", "slides/talk.md", cwd=tmp_path)
    lines = broken.stderr.strip().splitlines()
    assert broken.returncode != 0 and len(lines) == 1, broken.stderr
    assert lines[0].startswith("error: slides/talk.md: ") and "KaTeX_Main-Regular.woff2 is missing" in lines[0]
    assert "Traceback" not in broken.stderr and single.stat().st_mtime_ns == written
