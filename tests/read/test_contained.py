"""The files a deck names: a missing picture says the names closest to it in its folder."""

from __future__ import annotations

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.read import deck_to_notebook

FILES = ("plot.png", "plot-old.png", "architecture.svg", "logo.png")


@pytest.mark.parametrize("markdown, meant", [
    ("![plot](images/Plot.png)", "'images/plot.png'"),
    ("![plot](images/plt.png)", "'images/plot.png'"),
    ("![plot](images/plot.svg)", "'images/plot.png'"),
    ("![arch](images/architecure.svg)", "'images/architecture.svg'"),
    ('<img src="images/archtecture.svg" alt="arch">', "'images/architecture.svg'"),
    ('## Slide {background-image="images/lgo.png"}', "'images/logo.png'"),
])
def test_a_missing_picture_says_the_closest_files_in_its_folder(write_deck, markdown, meant):
    deck = write_deck(f"# Talk\n\n---\n\n{markdown}\n")
    (deck.parent / "images").mkdir()
    for name in FILES:
        (deck.parent / "images" / name).write_bytes(b"x")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 5 and f"did you mean {meant}" in str(caught.value), str(caught.value)


def test_a_missing_picture_with_nothing_close_says_where_to_put_it(write_deck):
    deck = write_deck("# Talk\n\n![x](images/zebra.png)\n")
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "plot.png").write_bytes(b"x")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert "did you mean" not in str(caught.value) and "put the file at" in str(caught.value)
