"""jaxdeck.progress: a running deck's line shows its name as text, whatever characters the name holds."""

from __future__ import annotations

import io

from jaxdeck.progress import Progress


class Terminal(io.StringIO):
    """What a terminal receives: the display draws only on one."""

    def isatty(self) -> bool:
        return True


def test_a_running_decks_line_shows_its_name_escaped_and_its_brackets_as_text():
    screen = Terminal()
    name = "slides/zz-\x1b[31mred\x1b[0m\n[blink]x[/blink].md"
    with Progress(2, stream=screen) as progress:
        progress.stage(name, "execute")
        progress._progress.refresh()
        progress.advance(name)
    drawn = screen.getvalue()
    assert "slides/zz-\\x1b[31mred\\x1b[0m\\n[blink]x[/blink].md" in drawn, repr(drawn)
    assert "\x1b[31m" not in drawn and "\x1b[5m" not in drawn, repr(drawn)
