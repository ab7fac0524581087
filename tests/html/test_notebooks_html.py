"""MyST and jupytext notebooks (tests/fixtures/notebooks) built to HTML and looked at in Chromium:
no overflow, no raw MyST on the slides, Jupyter Book tags applied, remote images offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxdeck.html.export import to_html
from jaxdeck.html.myst import cell_view
from support import BADGE, BADGE_SVG, NOTEBOOKS
from jaxdeck.read.images import key
from jaxdeck.read.structure import slide_count

RAW_MYST = ("{func}", "{ref}", "{doc}", "```{note}", ":::{", "+++")
TARGET = re.compile(r"^\s*\([\w.:-]+\)=", re.MULTILINE)

#: what the slides show, speaker notes left out
SLIDE_TEXT = """() => {
  const slides = document.querySelector('.reveal .slides').cloneNode(true);
  slides.querySelectorAll('aside.notes, script, style').forEach(el => el.remove());
  return slides.textContent;
}"""


def _distinctive(nb, index: int) -> str:
    """The longest line of cell ``index`` that no other cell of the notebook has."""
    others = "\n".join(c.source for i, c in enumerate(nb.cells) if i != index)
    lines = [line.strip() for line in nb.cells[index].source.split("\n")]
    lines = [line for line in lines if len(line) > 8 and line not in others]
    assert lines, f"cell {index} has no line of its own to look for"
    return max(lines, key=len)


@pytest.mark.heavy
@pytest.mark.parametrize("deck", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_builds_to_html_that_fits_and_shows_no_raw_myst(deck, built_notebooks, browser):
    from jaxdeck.pages import open_deck
    from jaxdeck.check.deck import check_deck

    outputs, nb = built_notebooks(deck)
    html = Path(outputs.html)
    overflow = [p for p in check_deck(deck, nb, html, browser) if p.kind == "overflow"]
    assert not overflow, "\n".join(str(p) for p in overflow)

    with open_deck(browser, html) as (page, requests):
        text = page.evaluate(SLIDE_TEXT)
    assert not requests, f"the deck asked the network for {requests}"
    for raw in RAW_MYST:
        assert raw not in text, f"raw MyST {raw!r} on a slide"
    assert not TARGET.search(text), f"a raw MyST target on a slide: {TARGET.search(text).group(0)!r}"

    for index, cell in enumerate(nb.cells):
        view = cell_view(cell)
        if view.removed or (cell.cell_type == "code" and not view.input_on_slide):
            shown = _distinctive(nb, index)
            assert shown not in text, f"cell {index} ({cell.metadata.get('tags')}) is on a slide: {shown!r}"


@pytest.mark.heavy
@pytest.mark.parametrize("deck", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_unfitted_html_has_one_section_per_counted_slide(deck, built_notebooks):
    _outputs, nb = built_notebooks(deck)
    assert to_html(nb).count("data-jd-slide=") == slide_count(nb)


def test_a_remote_image_points_at_its_copy_beside_the_page(built_notebooks):
    outputs, _nb = built_notebooks(next(p for p in NOTEBOOKS if p.stem == "md_random_numbers"))
    page = Path(outputs.html).read_text(encoding="utf-8")
    src = f"images/remote/{key(BADGE)}.svg"
    assert f'src="{src}"' in page and "img.shields.io" not in page.replace(BADGE, "")
    assert (Path(outputs.html).parent / src).read_bytes() == BADGE_SVG


def test_without_chromium_a_marker_less_deck_is_exported_unfitted_with_one_warning(write_deck, tmp_path, monkeypatch, capsys):
    from jaxdeck.html.export import export_html
    from jaxdeck.read import deck_to_notebook

    deck = write_deck("## Heading\n\n" + "\n\n".join(f"Paragraph {n} of a long section." for n in range(40)) + "\n")
    nb = deck_to_notebook(deck)
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "no-such-browser"))
    html = export_html(nb, deck, tmp_path / "html" / "talk.html").read_text(encoding="utf-8")
    warned = capsys.readouterr().err.strip().splitlines()
    assert len(warned) == 1 and "not fitted" in warned[0]
    assert html.count("data-jd-slide=") == 1 and "(continued)" not in html
