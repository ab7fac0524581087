"""Text from a deck is text wherever a plugin shows it: a heading that shows markup as inline code
(`<img src=x onerror=...>`) is listed by the slide menu as those characters and found by search as
text, and nothing in it runs, in the deck (build/html) and in the single file (build
--self-contained), in a real Chromium."""

from __future__ import annotations

import pytest

from jaxdeck.pages import open_deck
from support import run_cli

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

DECK = """# Title

intro

---

## Look `<img src=x onerror="window.__pwned=1">` here

text

---

Words <code>&lt;img src=x onerror="window.__pwned=2"&gt;</code> and more

---

```python
1 + 1
```
"""

#: the menu's titles: the heading as written, a slide without one by its first words, a code-only slide by number
TITLES = ["Title", 'Look <img src=x onerror="window.__pwned=1"> here', "Words <img src=x…", "Slide 4"]
TITLES_SHOWN = "() => [...document.querySelectorAll('.slide-menu-item-title')].map(t => t.innerText.trim())"
#: what the menu put in the page for each title (markup there would be elements)
TITLE_ELEMENTS = "() => document.querySelectorAll('.slide-menu-item-title *').length"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("text-is-text")
    (root / "talk.md").write_text(DECK, encoding="utf-8")
    done = run_cli("build", "--self-contained", "talk.md", cwd=root, env={"JUPYTER_DATA_DIR": str(root / "jupyter")})
    assert done.returncode == 0, done.stderr
    return {"deck": root / "build" / "html" / "talk.html", "single file": root / "build" / "single" / "talk.html"}


@pytest.mark.parametrize("kind", ["deck", "single file"])
def test_the_menu_lists_a_heading_that_shows_markup_as_its_text_and_nothing_runs(browser, built, kind):
    with open_deck(browser, built[kind]) as (page, _):
        page.wait_for_selector(".slide-menu-items li", state="attached", timeout=10000)
        page.keyboard.press("m")
        page.wait_for_selector(".slide-menu.active", timeout=5000)
        page.wait_for_timeout(300)  # an <img> the menu made would have failed to load by now
        assert page.evaluate("window.__pwned") is None
        assert page.evaluate(TITLE_ELEMENTS) == 0
        assert page.evaluate(TITLES_SHOWN) == TITLES


@pytest.mark.parametrize("kind", ["deck", "single file"])
def test_search_finds_the_heading_as_text_and_nothing_runs(browser, built, kind):
    with open_deck(browser, built[kind]) as (page, _):
        page.wait_for_selector(".slide-menu-items li", state="attached", timeout=10000)
        page.evaluate("Reveal.getPlugin('search').open()")
        page.type(".searchinput", "onerror")  # typed: the plugin searches once a key went up in the box
        page.press(".searchinput", "Enter")
        page.wait_for_function("() => Reveal.getIndices().h === 1", timeout=5000)
        found = page.eval_on_selector_all(".reveal .slides em", "found => found.map(e => e.textContent)")
        assert "onerror" in found
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None
        assert page.evaluate("document.querySelectorAll('.reveal .slides h2 img').length") == 0
