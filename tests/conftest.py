"""Shared fixtures: the repository's decks, a deck writer, one real browser, built decks."""

from __future__ import annotations

import functools
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import support  # noqa: F401  (puts the repository on sys.path first)
import session_builds
from clock_checks import LEFT_OUT


@pytest.fixture
def write_deck(tmp_path):
    """Write a deck (text or bytes) into a fresh slides/ folder and return its path."""

    def write(text: str | bytes, name: str = "talk.md") -> Path:
        folder = tmp_path / "slides"
        folder.mkdir(exist_ok=True)
        path = folder / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (Playwright + the system browser)."""
    from jaxdeck.browser import chromium

    with chromium() as started:
        yield started


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """Every deck in slides/ built once (executed notebook + HTML) into a session folder.

    Returns a function deck -> (Outputs, executed notebook).
    """
    return session_builds.deck_builder(session_builds.shared_folder(tmp_path_factory, "build"), shared=True)


@pytest.fixture(scope="session")
def built_notebooks(tmp_path_factory):
    """The tutorial notebooks (support.NOTEBOOKS), each built once (notebook, HTML fitted in
    Chromium, its cuts) into a session folder whose image cache holds the remote badge."""
    from jaxdeck.read.images import key

    from jaxdeck.atomic import write_bytes

    root = session_builds.shared_folder(tmp_path_factory, "notebooks")
    write_bytes(root / "images" / f"{key(support.BADGE)}.svg", support.BADGE_SVG)
    return session_builds.deck_builder(root, shared=True)


def pytest_sessionstart(session):
    """Under pytest-xdist, with the whole suite to run: every deck in slides/ is executed here,
    in the controller, before any worker starts, one at a time.

    The tests that read a deck's recorded cell times (its budgets) then read times taken with
    the machine's every core and nothing else running; the workers' ``built`` fixture finds the
    decks built in that shared folder and builds nothing again. A deck that fails to build (its
    DeckError) is recorded there instead: that deck's tests fail with the build's lines, every other
    test runs.
    """
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    whole = [Path(a).resolve() for a in config.args] in ([], [support.ROOT / "tests"])
    if not whole or not support.DECKS or not support.selects_heavy(config.option.markexpr):
        return
    from jaxdeck.build import build
    from jaxdeck.errors import DeckError

    folder = session_builds.shared_folder(config._tmp_path_factory, "build")
    with session_builds.session_environment():
        for deck in support.DECKS:
            try:
                build([deck], folder, jobs=1)
            except DeckError as err:
                session_builds.record_build_failure(folder, deck, err)
            except Exception:  # a bug: the deck's tests build it again, and show its traceback
                continue


#: the shared fixtures that build decks, start a browser or run the benchmarks: a test that takes one is heavy
HEAVY_FIXTURES = {"browser", "built", "built_notebooks", "bench_run"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups to schedule by
def pytest_collection_modifyitems(items):
    """Marks for every test: ``browser`` on those that take the browser fixture (``-m 'not browser'``
    skips them); ``heavy`` on those that take a fixture that builds decks, starts a browser or a
    server (the shared ones above, and any module-scoped one: a server, a built deck, a wheel), so
    ``make test-quick`` leaves them out with the tests marked heavy by hand; and an ``xdist_group``
    that keeps costly shared fixtures to one worker each.

    Under ``make test`` (pytest-xdist, ``--dist loadgroup``) tests are spread over the cores one
    by one, except that the tests of a module with a module-scoped fixture (a server, a built
    deck, a wheel) run on one worker, which starts that fixture once, and so do the tests that
    share the benchmark run.
    """
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        scopes = {d.scope for name in names for d in defs.get(name, ())}
        if names & HEAVY_FIXTURES or "module" in scopes:
            item.add_marker(pytest.mark.heavy)
        if "bench_run" in names:
            item.add_marker(pytest.mark.xdist_group("bench_run"))
        elif "module" in scopes:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@functools.cache
def unreachable_index() -> str | None:
    """Why the package index the installers would ask (uv's or pip's, else PyPI; through the HTTPS proxy when one is
    set) cannot be reached by a quick connection, or None when it can: a test marked ``network`` is skipped, saying
    so, only then, and fails as any other when the index answers."""
    index = next((os.environ[v] for v in ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL") if os.environ.get(v)),
                 "https://pypi.org/simple")
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    where = urlsplit(proxy or index)
    port = where.port or (443 if where.scheme == "https" else 80)
    try:
        socket.create_connection((where.hostname, port), timeout=5).close()
    except OSError as err:
        return f"the package index {index} is unreachable ({where.hostname}:{port}: {err})"
    return None


def pytest_runtest_setup(item):
    if item.get_closest_marker("network") and unreachable_index():
        pytest.skip(f"{unreachable_index()}; this test installs from it")


#: the clock-reading checks each matrix test left out (tests/clock_checks.py), by the test's id: said at the end
_left_out: dict[str, list[str]] = {}


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:  # under pytest-xdist, as the worker sent them
            if key == LEFT_OUT and value:
                _left_out[report.nodeid] = list(value)


def pytest_terminal_summary(terminalreporter):
    """Names the checks the device and version matrices left out, with the runs that left them out: every
    other check ran there; these hold in each deck's own build and on a GPU."""
    if not _left_out:
        return
    runs: dict[tuple[str, ...], list[str]] = {}
    for nodeid, checks in sorted(_left_out.items()):
        runs.setdefault(tuple(checks), []).append(nodeid.split("[", 1)[-1].rstrip("]"))
    terminalreporter.section("clock-reading checks left out of the matrices (each holds in its deck's own build)")
    for checks, ids in runs.items():
        terminalreporter.write_line(f"{', '.join(checks)}  (left out at {', '.join(ids)})")
