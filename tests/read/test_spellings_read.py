"""The read stage and Quarto's deck spellings: the near-miss lint leaves them alone, a malformed
attribute is text, and a slide background or logo follows the image rules, at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.read import deck_to_notebook

HEADER = "---\njupyter:\n  jaxdeck:\n    title: T\n---\n\n# T\n\nNote: n.\n\n---\n\n"


def deck(tmp_path: Path, body: str, header: str = HEADER) -> Path:
    (tmp_path / "images").mkdir(exist_ok=True)
    (tmp_path / "images" / "x.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    path = tmp_path / "d.md"
    path.write_text(header + body)
    return path


def test_spellings_are_no_near_misses(tmp_path):
    body = ("## S {.smaller background-image=\"images/x.svg\"}\n\n{.incremental}\n- a\n- b\n\n"
            "{.fragment .fade-up}\nText [red]{.fragment .highlight-red}.\n\n## Bad {.smaller\n\n{.incremental\n\nNote: n.\n")
    nb = deck_to_notebook(deck(tmp_path, body), build=tmp_path / "build")
    assert any("{.incremental}" in cell.source for cell in nb.cells)


def test_a_missing_background_image_is_an_error_at_its_line(tmp_path):
    with pytest.raises(DeckError) as err:
        deck_to_notebook(deck(tmp_path, '## S {background-image="images/none.svg"}\n\nNote: n.\n'),
                         build=tmp_path / "build")
    assert err.value.line == 13 and "images/none.svg" in err.value.message


def test_a_remote_logo_is_refused_at_its_line(tmp_path):
    header = HEADER.replace("    title: T\n", "    logo: https://example.com/logo.svg\n    title: T\n")
    with pytest.raises(DeckError) as err:
        deck_to_notebook(deck(tmp_path, "## S\n\nNote: n.\n", header), build=tmp_path / "build")
    assert err.value.line == 4 and "web URL" in err.value.message
