"""The series file (jaxdeck.site.series): defaults, order, and a mistake said in one line at its line."""

from __future__ import annotations

import pytest

from support import run_cli
from jaxdeck.errors import DeckError
from jaxdeck.site.series import read_series


@pytest.fixture
def slides(tmp_path):
    folder = tmp_path / "seminar-talks" / "slides"
    folder.mkdir(parents=True)
    for name in ("02-second", "01-first", "README"):
        (folder / f"{name}.md").write_text("# A talk\n")
    return folder


def test_without_a_file_the_title_is_the_folders_and_the_talks_every_deck_in_name_order(slides):
    series = read_series(slides)
    assert series.title == "Seminar talks"
    assert [p.name for p in series.talks] == ["01-first.md", "02-second.md"]


def test_the_file_gives_title_description_and_order(slides):
    (slides / "series.yml").write_text("title: Our series\ndescription: Two talks.\ntalks: [02-second, 01-first.md]\n")
    series = read_series(slides)
    assert (series.title, series.description) == ("Our series", "Two talks.")
    assert [p.name for p in series.talks] == ["02-second.md", "01-first.md"]


def test_an_unknown_key_is_named_at_its_line_with_the_right_spelling(slides):
    (slides / "series.yml").write_text("title: Ours\ntalk:\n  - 01-first\n")
    with pytest.raises(DeckError) as raised:
        read_series(slides)
    assert raised.value.line == 2 and "did you mean 'talks'" in str(raised.value)


def test_a_talk_that_is_no_deck_is_an_error_with_a_close_name(slides):
    (slides / "series.yml").write_text("talks:\n  - 01-frist\n")
    with pytest.raises(DeckError) as raised:
        read_series(slides)
    assert raised.value.line == 1 and "did you mean '01-first'" in str(raised.value)


def test_aliases_are_refused(slides):
    (slides / "series.yml").write_text("title: &a Ours\ndescription: *a\n")
    with pytest.raises(DeckError):
        read_series(slides)


def test_the_command_says_the_mistake_in_one_line(slides):
    (slides / "series.yml").write_text("title: [unclosed\n")
    done = run_cli("site", cwd=slides.parent)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("error: slides/series.yml:")
