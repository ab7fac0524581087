"""Fixtures the live slideshow's browser tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def remote():
    """URLs any page of the module asked for outside the loopback address (see live_pages.watch_requests):
    none, checked when the module's tests are done."""
    seen: list[str] = []
    yield seen
    assert seen == [], seen
