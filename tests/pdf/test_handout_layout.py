"""The handout's layout: the header's, each flag given for one run in its place; a run with other flags reprints it."""

from __future__ import annotations

import pytest

from jaxdeck.options import CHOICES, DeckOptions
from pathlib import Path

from jaxdeck.decks import Outputs
from jaxdeck.pdf.layout import PAPERS, HandoutFlags, HandoutLayout, pdf_path
from jaxdeck.stamps import Sources


@pytest.mark.parametrize("header, flags, expected", [
    ({}, None, (1, "A4")),
    ({"handout_per_page": 3, "paper": "letter"}, None, (3, "Letter")),
    ({"handout_per_page": 3, "paper": "letter"}, HandoutFlags(per_page=2), (2, "Letter")),
    ({"handout_per_page": 3, "paper": "letter"}, HandoutFlags(paper="a4"), (3, "A4")),
    ({}, HandoutFlags(1, "letter"), (1, "Letter")),
])
def test_a_flag_given_for_a_run_takes_the_place_of_the_headers_value(header, flags, expected):
    layout = HandoutLayout.of(DeckOptions.of(header), flags)
    assert (layout.per_page, layout.paper.name) == expected


def test_every_choice_a_header_may_make_has_its_paper_and_page_share():
    assert set(PAPERS) == set(CHOICES["paper"]) and DeckOptions().paper == CHOICES["paper"][0]
    assert DeckOptions().handout_per_page == CHOICES["handout_per_page"][0]
    for per_page in CHOICES["handout_per_page"]:
        page = HandoutLayout(per_page, PAPERS["letter"]).page()
        assert {key: page[key] for key in ("perPage", "height")} == {"perPage": per_page, "height": "247.4mm"}
    assert HandoutLayout().page()["height"] == "265mm"  # A4's 297 mm less the 18 and 14 mm margins


@pytest.mark.parametrize("paper", PAPERS)
def test_each_slide_is_as_wide_as_its_share_allows_and_its_smallest_text_stays_6pt(paper):
    width = PAPERS[paper].width_mm - 32  # inside the 16 mm side margins
    widths = [HandoutLayout(per_page, PAPERS[paper]).frame_width_mm() for per_page in (1, 2, 3)]
    assert widths[0] == pytest.approx(width - 1) and widths == sorted(widths, reverse=True)
    # a 1280 px slide's 20 px outputs, printed 0.96 of its page (the screen's margin), at 6 pt or more
    assert all(w / 25.4 * 96 / 1280 * 20 * 0.75 * 0.96 >= 6 for w in widths)
    assert all(w >= 0.75 * width for w in widths)  # the page used: no slide under 3/4 of its width


def test_only_the_handouts_record_keeps_the_flags_given(tmp_path):
    sources = Sources(tmp_path)
    html = {"sha256": "0" * 64, "inputs": {"notebook": "1" * 64}}
    deck = tmp_path / "talk.md"
    plain = sources.pdf_inputs("handout", html, deck)
    assert sources.pdf_inputs("handout", html, deck, HandoutFlags()) == plain  # no flag: as a run without them
    assert sources.pdf_inputs("handout", html, deck, HandoutFlags(paper="letter")) == {**plain,
                                                                                       "flags": {"paper": "letter"}}
    assert sources.pdf_inputs("pdf", html, deck, HandoutFlags(3, "letter")) == sources.pdf_inputs("pdf", html, deck)


@pytest.mark.parametrize("flags, name", [
    (None, "talk-handout.pdf"), (HandoutFlags(), "talk-handout.pdf"), (HandoutFlags(2), "talk-handout-2up.pdf"),
    (HandoutFlags(paper="letter"), "talk-handout-letter.pdf"), (HandoutFlags(3, "a4"), "talk-handout-3up-a4.pdf"),
])
def test_a_handout_laid_out_by_a_runs_flags_has_a_name_of_its_own(tmp_path, flags, name):
    outputs = Outputs(Path("slides/talk.md"), tmp_path)
    assert pdf_path(outputs, "handout", flags) == tmp_path / "pdf" / name
    assert pdf_path(outputs, "pdf", flags) == outputs.pdf  # the slides PDF keeps its name
