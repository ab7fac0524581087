"""The series site (`jaxdeck site`): two tiny decks built into a site in a project folder, read in a real
Chromium from file://, and built again after no change and after a prose edit."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from support import ROOT, run_cli

ALPHA = """---
jupyter:
  jaxdeck:
    author: Ada Lovelace
    date: '2026-11-22'
    duration: 10
    title: Alpha talk
    venue: Room 2
---

# Alpha talk

Note: welcome everyone to the first talk.

---

## Adding numbers

Some prose about adding.

```python
6 * 7
```

Note: the answer, as a marmoset would say it.
"""

BETA = """# Beta talk

Note: a talk with no header of its own.

---

## Printing

```python
print("beta", 2 + 2)
```

Note: printing shows the result.

--

## Below

A vertical slide.

Note: only these notes say quokka.
"""

SERIES = """title: A small series
description: |
  Two talks, to *try* the site.
talks:
  - beta
  - alpha
"""

#: every local address the page names (links, pictures, scripts, styles), as the browser resolved it
ADDRESSES = """() => [...document.querySelectorAll('[href], [src]')].map(e => e.href || e.src)
    .filter(u => typeof u === 'string' && u.startsWith('file:'))"""
#: serious or critical violations axe-core finds on the page
AXE = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(', ')})`)"""
AXE_SCRIPT = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def site(project: Path, *args: str):
    done = run_cli("site", *args, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project of two decks and a series file, its site built once."""
    folder = tmp_path_factory.mktemp("series")
    shutil.copy(ROOT / "jupytext.toml", folder / "jupytext.toml")
    (folder / "slides").mkdir()
    (folder / "slides" / "alpha.md").write_text(ALPHA)
    (folder / "slides" / "beta.md").write_text(BETA)
    (folder / "slides" / "series.yml").write_text(SERIES)
    site(folder)
    return folder


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under the site and its records: modification time (ns) and digest."""
    found = {}
    for part in ("build/site", "build/cache/site"):
        for path in sorted((folder / part).rglob("*")):
            if path.is_file():
                found[str(path.relative_to(folder))] = (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def offline_page(browser):
    """A page that loads files only: every other request is recorded and refused."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    asked: list[str] = []
    context.on("request", lambda request: None if request.url.startswith(("file:", "data:", "blob:"))
               else asked.append(request.url))
    context.route("**/*", lambda route: route.fallback() if route.request.url.startswith("file:") else route.abort())
    context.route_web_socket("**/*", lambda socket: (asked.append(socket.url), socket.close()))
    return context, context.new_page(), asked


def test_the_index_has_a_card_per_talk_in_the_series_order(project):
    index = (project / "build" / "site" / "index.html").read_text()
    assert index.index("Beta talk") < index.index("Alpha talk"), "the series file's order"
    assert "A small series" in index and "<em>try</em>" in index
    for fact in ("Ada Lovelace", "2026-11-22", "Room 2", "10 min", "about 1 min (estimate)", "1 x cpu"):
        assert fact in index
    assert (project / "build" / "site" / ".nojekyll").is_file()
    assert (project / "build" / "site" / "pictures" / "alpha.png").read_bytes()[:4] == b"\x89PNG"


def test_every_local_link_resolves_and_no_page_asks_the_network(project, browser):
    root = project / "build" / "site"
    pages = [root / "index.html", *sorted((root / "talks").glob("*.html")), *sorted((root / "html").glob("*.html")),
             *sorted((root / "article").glob("*.html"))]
    assert len(pages) == 7
    context, page, asked = offline_page(browser)
    missing = []
    try:
        for html in pages:
            page.goto(html.as_uri(), wait_until="load")
            for address in page.evaluate(ADDRESSES):
                target = Path(unquote(urlsplit(address).path))
                if not target.is_file():
                    missing.append(f"{html.relative_to(root)} -> {address}")
    finally:
        context.close()
    assert not missing
    assert asked == []


def test_a_word_only_some_notes_hold_is_found_and_opens_its_slide_from_the_keyboard(project, browser):
    context, page, asked = offline_page(browser)
    try:
        page.goto((project / "build" / "site" / "index.html").as_uri(), wait_until="load")
        page.keyboard.press("/")
        assert page.evaluate("document.activeElement.id") == "search-input"
        page.keyboard.type("quokka")
        page.wait_for_selector("#search-results li a", timeout=30000)
        results = page.locator("#search-results li a")
        assert results.count() == 1
        assert "Beta talk · 3. Below" in results.first.inner_text()
        assert page.locator("#search-results mark").first.inner_text().lower() == "quokka"
        page.keyboard.press("ArrowDown")
        with page.expect_navigation(timeout=30000):
            page.keyboard.press("Enter")
        assert page.url.endswith("/html/beta.html#/1/1")
        page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30000)
        assert page.evaluate("Reveal.getIndices()")["h"] == 1 and page.evaluate("Reveal.getIndices()")["v"] == 1
        assert "quokka" in page.evaluate("Reveal.getCurrentSlide().querySelector('aside.notes').textContent")
    finally:
        context.close()
    assert asked == []


@pytest.mark.parametrize("name", ["index.html", "talks/beta.html"])
def test_axe_finds_no_serious_or_critical_violation(project, browser, name):
    context, page, _ = offline_page(browser)
    try:
        page.goto((project / "build" / "site" / name).as_uri(), wait_until="load")
        page.add_script_tag(path=str(AXE_SCRIPT))
        assert page.evaluate(AXE) == []
    finally:
        context.close()


def test_a_second_site_with_nothing_changed_writes_nothing(project):
    before = snapshot(project)
    done = site(project)
    assert done.stdout.strip().endswith("index.html: up to date"), done.stdout
    assert "slides/" not in done.stdout, "no deck was built again"
    assert snapshot(project) == before


def test_a_prose_edit_remakes_that_talk_and_the_search_not_the_other_talk(project, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    deck = copy / "slides" / "beta.md"
    deck.write_text(deck.read_text().replace("only these notes say quokka", "only these notes say wombat")
                    .replace("## Below", "## Beneath"))
    before = snapshot(copy)
    done = site(copy)
    assert "slides/beta.md: HTML + article + PDF" in done.stdout, "a prose edit runs no cell"
    after = snapshot(copy)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert {"build/site/search-index.js", "build/site/html/beta.html", "build/site/talks/beta.html"} <= changed
    assert not [name for name in changed if "alpha" in name], "the other talk is left as it was"
    shared = {"build/site/index.html", "build/site/search-index.js", "build/cache/site/records.json"}
    assert not [name for name in changed if "beta" not in name and name not in shared]
    assert "wombat" in (copy / "build" / "site" / "search-index.js").read_text()
    assert "Beneath" in (copy / "build" / "site" / "talks" / "beta.html").read_text()
    assert "build/site/index.html" not in changed, "the card shows nothing the edit changed"
