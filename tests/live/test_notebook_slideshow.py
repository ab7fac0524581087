"""Tutorial notebooks presented live: `jaxdeck present`'s real server, RISE and a headless Chromium.

Each fixture of tests/fixtures/notebooks, built as `make` builds it (its HTML fitted in Chromium,
the cuts kept beside it), is opened in the live slideshow and walked slide by slide: it has the
static deck's slides, none runs past the bottom, and no MyST syntax shows raw.
"""

from __future__ import annotations

import shutil

import pytest

from support import NOTEBOOKS, ROOT, evaluate_live, presenting

#: starts a kernel, a server, a browser or a build (not in `make test-quick`)
pytestmark = pytest.mark.heavy

#: every slide of the live deck, laid out: its scroll height and visible Markdown text
WALK = """async () => {
  const reveal = window.jaxdeckLive.reveal;
  const slides = [];
  for (const slide of reveal.getSlides()) {
    const at = reveal.getIndices(slide);
    reveal.slide(at.h, at.v);
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const text = [...slide.querySelectorAll('.jp-RenderedMarkdown')].filter(e => e.offsetParent)
      .map(e => e.textContent).join('\\n');
    slides.push({h: at.h, v: at.v, height: slide.scrollHeight, text});
  }
  return {room: Number(reveal.getConfig().height), slides};
}"""
#: MyST syntax a reader must never see: roles, targets, directive fences, block breaks
RAW_MYST = ("{func}`", "{ref}`", "{doc}`", "```{", ":::{", "+++")


@pytest.fixture(scope="module")
def repo(tmp_path_factory, built_notebooks):
    """A repository holding the fixtures as slides/ and their build (notebooks, HTML cuts, images)."""
    root = tmp_path_factory.mktemp("live-notebooks")
    shutil.copy(ROOT / "jupytext.toml", root / "jupytext.toml")
    (root / "slides").mkdir()
    for deck in NOTEBOOKS:
        outputs, _ = built_notebooks(deck)
        shutil.copy(deck, root / "slides" / deck.name)
    # the other notebooks of the shared build may be written meanwhile: their temporary files (a write's,
    # auto-fit's scratch page, a build's probe of its folder) come and go, and are left out
    shutil.copytree(outputs.root, root / "build",
                    ignore=shutil.ignore_patterns(".*.tmp", ".*.lock", ".*.fitting.html", ".probe-*"))
    return root


@pytest.fixture(scope="module")
def server(repo):
    with presenting(repo, f"slides/{NOTEBOOKS[0].name}") as started:
        yield started


@pytest.mark.parametrize("deck", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_tutorial_notebook_presents_live_on_the_static_decks_slides_without_overflow(deck, repo, server, browser):
    static = (repo / "build" / "html" / f"{deck.stem}.html").read_text(encoding="utf-8")
    walked = evaluate_live(browser, server, deck.name, WALK)
    slides = walked["slides"]
    assert len(slides) == static.count("data-jd-slide=")
    over = [(s["h"], s["v"], s["height"]) for s in slides if s["height"] > walked["room"] + 2]
    assert over == [], f"live slides (h, v, height) taller than {walked['room']} px"
    raw = [(s["h"], s["v"], token) for s in slides for token in RAW_MYST if token in s["text"]]
    assert raw == []


def test_the_corpus_has_continued_slides_to_follow(repo):
    """The walk above follows the fit's cuts: some fall inside markdown cells, some before code."""
    from jaxdeck.html.fit_record import read_cuts
    from jaxdeck.read import deck_to_notebook

    inside = before_code = 0
    for deck in NOTEBOOKS:
        nb = deck_to_notebook(repo / "slides" / deck.name, build=repo / "build")
        starts = {c.metadata["jaxdeck"]["line"]: c.cell_type for c in nb.cells}
        for cut in read_cuts(repo / "build" / "html" / f"{deck.stem}.html"):
            before_code += starts.get(cut.line) == "code"
            inside += cut.line not in starts
    assert inside and before_code
