"""One rule for raw HTML, the same on the static deck and live (slides/README.md, "Raw HTML and
outputs"): the deck's own Markdown shows as written, its raw HTML included; outputs show as built
when this user's build made them, and sanitised when they came from elsewhere (a --frozen notebook
this user's builds did not sign). Live, the slide menu lists a heading that shows markup as its
text. Real builds (a kernel), a real Jupyter server with jupyterlab-rise, a real Chromium."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from jaxdeck.pages import open_deck
from support import ROOT, live_page, presenting, run_cli

#: builds, a live server with a kernel, and Chromium
pytestmark = pytest.mark.heavy

DECK = """# Trust

<span class="jd-authored" style="color: rgb(1, 2, 3)">written</span> <img src="data:," onerror="window.__authored = 1">

```python
from IPython.display import HTML
HTML('<b class="jd-output">made</b><img src="data:," onerror="window.__output_ran = 1">')
```

---

## Look `<img src="data:," onerror="window.__pwned = 1">` here
"""

#: every picture on the page has failed, and the author's one's handler has run: a handler the output's
#: picture kept would have run too (its error came as early, and is handled in the same way)
FAILED = """() => window.__authored === 1 && [...document.images].every(i => i.complete)"""
#: what ran and what shows: the author's raw HTML, the output's handler, the output's markup
SEEN = """async () => {
  await new Promise(done => setTimeout(done, 0));  // after the error events already queued
  const authored = document.querySelector('.jd-authored');
  return {authored: window.__authored ?? null, styled: authored && getComputedStyle(authored).color,
          output_ran: window.__output_ran ?? null, output_shown: !!document.querySelector('.jd-output')};
}"""
#: ours: made by this user's build; theirs: the same outputs, frozen from a notebook not signed here
EXPECTED = {
    "ours": {"authored": 1, "styled": "rgb(1, 2, 3)", "output_ran": 1, "output_shown": True},
    "theirs": {"authored": 1, "styled": "rgb(1, 2, 3)", "output_ran": None, "output_shown": True},
}


def seen(page) -> dict:
    """SEEN, once the page's pictures have all failed (a hang guard: what it shows then, if they never do)."""
    try:
        page.wait_for_function(FAILED, timeout=30000)
    except PlaywrightTimeout:
        raise AssertionError(f"the pictures never all failed with the author's handler run: {page.evaluate(SEEN)}") from None
    return page.evaluate(SEEN)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """slides/ours.md built here; slides/theirs.md built --frozen from a copy of ours' notebook
    changed elsewhere (so no longer signed); a live server on both."""
    root = tmp_path_factory.mktemp("trust-rule")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    for name in EXPECTED:
        (root / "slides" / f"{name}.md").write_text(DECK, encoding="utf-8")
    env = {"JUPYTER_DATA_DIR": str(root / "jupyter")}  # this user's signatures, for builds and the server
    done = run_cli("build", "slides/ours.md", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    nb = nbformat.read(root / "build" / "notebooks" / "ours.ipynb", as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs[0]["data"]["text/html"] += " "  # changed since this user's build wrote it
    (root / "elsewhere").mkdir()
    nbformat.write(nb, root / "elsewhere" / "theirs.ipynb")
    done = run_cli("build", "slides/theirs.md", "--frozen", "elsewhere/theirs.ipynb", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    with presenting(root, "slides/ours.md", env=env) as server:
        yield {"root": root, "server": server}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_static_deck_shows_the_authors_html_as_written_and_only_this_users_outputs_as_built(browser, project, name):
    with open_deck(browser, project["root"] / "build" / "html" / f"{name}.html") as (page, _):
        assert seen(page) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_live_slideshow_follows_the_same_rule(browser, project, name):
    with live_page(browser, project["server"], f"{name}.md") as page:
        page.wait_for_selector(".jd-output", state="attached", timeout=10000)
        assert seen(page) == EXPECTED[name]


def test_the_live_menu_lists_a_heading_that_shows_markup_as_its_text(browser, project):
    with live_page(browser, project["server"], "ours.md") as page:
        page.wait_for_selector(".slide-menu-items li", state="attached", timeout=20000)
        # the heading's markup is the title's text: no picture was made of it, so no handler can run
        assert page.evaluate("document.querySelectorAll('.slide-menu-items img').length") == 0
        assert page.evaluate("window.__pwned ?? null") is None
        titles = page.eval_on_selector_all(".slide-menu-item-title", "titles => titles.map(t => t.innerText.trim())")
        assert titles == ["Trust", 'Look <img src="data:," onerror="window.__pwned = 1"> here']
