from dataclasses import fields

import nbformat

from jaxdeck.options import TYPES, DeckOptions


def test_every_option_a_header_may_give_is_a_field():
    assert {f.name for f in fields(DeckOptions)} == set(TYPES)


def test_defaults_fill_what_the_header_leaves_out():
    options = DeckOptions.of({"title": "Talk", "width": 1920})
    assert options.size == (1920, 720)
    assert options.title_for("slides/x.md") == "Talk"
    assert DeckOptions.of(None).title_for("slides/01-intro.md") == "01-intro"


def test_a_notebook_gives_its_header_options():
    nb = nbformat.v4.new_notebook(metadata={"jaxdeck": {"author": "A", "venue": "V", "budget_s": 5}})
    options = DeckOptions.of(nb)
    assert options.byline() == ["A", "V"] and options.budget_s == 5


def test_reveal_config_follows_the_options():
    config = DeckOptions.of({"height": 1080, "slide_number": False}).reveal_config()
    assert (config["width"], config["height"], config["slideNumber"], config["center"]) == (1280, 1080, False, False)


def test_slide_number_true_shows_the_slide_of_the_total_as_the_default_does():
    """reveal.js's own ``slideNumber: true`` is "h.v" (6 . 1 on a slide of one column): true means shown, as documented."""
    assert DeckOptions.of({"slide_number": True}).reveal_config()["slideNumber"] == "c/t"
    assert DeckOptions.of({"slide_number": "h/v"}).reveal_config()["slideNumber"] == "h/v"


def test_a_yaml_date_is_a_date_and_shown_as_text():
    import datetime

    day = datetime.date(2026, 11, 22)
    assert isinstance(day, TYPES["date"]) and not isinstance(day, TYPES["title"])
    assert DeckOptions.of({"date": datetime.date(2026, 11, 22), "author": "A"}).byline() == ["A", "2026-11-22"]


def test_the_header_keys_jaxdeck_reads_are_never_among_those_it_only_keeps():
    from jaxdeck.options import KEPT_KEYS, READ_KEYS
    from jaxdeck.records import OPTIONS_KEY

    assert OPTIONS_KEY in READ_KEYS and "rise" in READ_KEYS
    assert not set(READ_KEYS) & KEPT_KEYS
