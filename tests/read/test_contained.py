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


# pictures of the deck's project: the repository holding it (the nearest folder with .git)

PICTURE = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40"/></svg>'


@pytest.fixture
def project(tmp_path):
    """A repository with its decks in slides/ and its figures in figures/, and a private file beside it."""
    root = tmp_path / "talks"
    (root / ".git").mkdir(parents=True)
    (root / "slides").mkdir()
    (root / "figures").mkdir()
    (root / "figures" / "plot.svg").write_text(PICTURE)
    (root / ".git" / "config").write_text("[core]\n")
    (tmp_path / "secret.svg").write_text(PICTURE)
    (root / "figures" / "link.svg").symlink_to(tmp_path / "secret.svg")
    return root


@pytest.mark.parametrize("markdown", [
    "![plot](../figures/plot.svg)",
    '<img src="../figures/plot.svg" alt="plot">',
    '## Plot {background-image="../figures/plot.svg"}',
    "![plot](./../slides/../figures/plot.svg)",
])
def test_a_picture_of_the_project_is_allowed(project, markdown):
    deck = project / "slides" / "talk.md"
    deck.write_text(f"# Talk\n\n---\n\n{markdown}\n")
    assert deck_to_notebook(deck).cells


@pytest.mark.parametrize("markdown, said", [
    ("![x](../../secret.svg)", "is outside the deck's project"),
    ("![x](../figures/link.svg)", "is outside the deck's project"),  # a link out of the project
    ("![x](../.git/config)", "is outside the deck's project"),  # nothing hidden on the way up
    ("![x](cfg.png)", "is outside the deck's project"),  # nor through a link into a hidden folder
    ("![x]({secret})", "is an absolute path"),
    ("![x](file://{secret})", "is not a file beside the deck"),
    ('<img src="../../secret.svg">', "is outside the deck's project"),
])
def test_a_picture_outside_the_project_is_refused_at_its_line(project, markdown, said):
    deck = project / "slides" / "talk.md"
    (deck.parent / "cfg.png").symlink_to("../.git/config")
    deck.write_text(f"# Talk\n\n---\n\n{markdown.format(secret=project.parent / 'secret.svg')}\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 5 and said in str(caught.value), str(caught.value)


@pytest.mark.parametrize("written, advice", [
    ("{root}/figures/plot.svg", "write it as ../figures/plot.svg"),  # a file of the project: its relative name
    ("{root}/slides/images/own.svg", "write it as images/own.svg"),
    ("{root}/.git/config", "copy it into"),  # a name the rule would refuse is never advised
    ("{root}/figures/link.svg", "copy it into"),
    ("{outside}/secret.svg", "copy it into"),
])
def test_an_absolute_path_is_told_the_relative_name_that_reaches_the_same_file(project, written, advice):
    (project / "slides" / "images").mkdir()
    (project / "slides" / "images" / "own.svg").write_text(PICTURE)
    deck = project / "slides" / "talk.md"
    deck.write_text(f"# Talk\n\n![x]({written.format(root=project, outside=project.parent)})\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    said = str(caught.value)
    assert caught.value.line == 3 and "is an absolute path" in said and advice in said, said
    if advice.startswith("write it as"):
        relative = advice.removeprefix("write it as ")
        deck.write_text(f"# Talk\n\n![x]({relative})\n")
        assert deck_to_notebook(deck).cells  # the advice, taken, builds


@pytest.mark.parametrize("written", ["loop.svg", "{folder}/loop.svg", "../slides/loop.svg"])
def test_a_link_that_leads_back_to_itself_is_one_line_at_its_picture(project, written):
    deck = project / "slides" / "talk.md"
    (deck.parent / "loop.svg").symlink_to("loop.svg")
    deck.write_text(f"# Talk\n\n![x]({written.format(folder=deck.parent)})\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 3 and ("leads back to itself" in str(caught.value)
                                       or "is an absolute path" in str(caught.value)), str(caught.value)


def test_without_a_repository_a_picture_stays_in_the_decks_folder(project):
    (project / ".git" / "config").unlink()
    (project / ".git").rmdir()
    deck = project / "slides" / "talk.md"
    deck.write_text("# Talk\n\n---\n\n![plot](../figures/plot.svg)\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert caught.value.line == 5 and "is outside the deck's folder" in str(caught.value)


def png(width: int, height: int) -> bytes:
    """A red PNG of that size (a picture the PDF keeps as an image of its own, which pdfimages lists)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xc8\x1e\x1e" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.mark.heavy
def test_a_picture_of_the_project_shows_in_the_html_the_single_file_and_the_pdf(project):
    import subprocess

    from support import run_cli

    (project / "figures" / "plot.png").write_bytes(png(37, 23))
    (project / "slides" / "talk.md").write_text("# Talk\n\n---\n\n## Plot\n\n![plot](../figures/plot.png)\n")
    done = run_cli("build", "slides/talk.md", "--out", "build", "--pdf", "--self-contained", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    html = project / "build" / "html"
    copy = html / "talk_files" / "_up_" / "figures" / "plot.png"
    assert copy.read_bytes() == (project / "figures" / "plot.png").read_bytes()
    assert 'src="talk_files/_up_/figures/plot.png"' in (html / "talk.html").read_text()
    assert "data:image/png;base64," in (project / "build" / "single" / "talk.html").read_text()
    listed = subprocess.run(["pdfimages", "-list", str(project / "build" / "pdf" / "talk.pdf")],
                            capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    assert [row.split()[3:5] for row in listed] == [["37", "23"]], listed
    # every copy is inside the build's folders: none beside the page, none above the build
    assert not (html / "figures").exists() and not (project / "build" / "figures").exists()
