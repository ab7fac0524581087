"""What a browser would show of an explorer's HTML output (tags dropped, entities decoded)."""

import re
from html.parser import HTMLParser

import pytest


def _shown_text(html: str) -> str:
    parts: list[str] = []
    parser = HTMLParser()
    parser.handle_data = parts.append
    parser.feed(html)
    parser.close()
    return re.sub(r"[ \t\r\n]+", " ", " ".join(parts)).strip()  # keeps the narrow no-break spaces


@pytest.fixture
def shown_text():
    """The text a browser shows for an HTML fragment."""
    return _shown_text
