"""Every file a build reads or writes for a deck stays where it belongs (jaxdeck.read.contained):
what a deck's raw HTML and its theme's url()s load is a file inside the deck's folder, or the
build stops with one line at the file and line that named it; the self-contained file inlines
nothing from outside the page's folder; a deck's copies go into its own html/NAME_files/, never
onto another deck's page, a shared asset or another deck's picture of the same name."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.read.source import read_notebook
from support import ROOT, run_cli

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY----- not for the mail\n"
DOT = '<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{0}"><rect width="{0}" height="{0}"/></svg>'


def leaked(folder: Path) -> list[str]:
    """The files under ``folder`` that hold the secret, as it is or base64-encoded (inlined)."""
    encoded = base64.b64encode(SECRET)
    return [str(p) for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
            and (SECRET in p.read_bytes() or encoded in p.read_bytes())]


@pytest.fixture
def secret(tmp_path) -> Path:
    """A private file beside the deck's folder (tmp/secret/id_rsa), as a user's key would be."""
    path = tmp_path / "secret" / "id_rsa"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


def one_line_error(done) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and len(lines) == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return lines[0]


# -- the read stage: raw HTML and a theme file's url()s, checked at their line before any kernel starts

RAW_HTML = [
    ('<img src="../secret/id_rsa" alt="k">', 3, "is outside the deck's folder"),
    ('Text with <img src="{secret}"> inline.', 3, "is an absolute path"),
    ('A paragraph\nthat goes on <img src="../secret/id_rsa">.', 4, "is outside the deck's folder"),
    ('<img srcset="images/dot.svg 1x, ../secret/id_rsa 2x">', 3, "is outside the deck's folder"),
    ('<video poster="../secret/id_rsa"></video>', 3, "is outside the deck's folder"),
    ("<div style=\"background: url('../secret/id_rsa')\">x</div>", 3, "is outside the deck's folder"),
    ("<style>\n.a { color: red; }\n.b { background: url(../secret/id_rsa); }\n</style>", 5,
     "is outside the deck's folder"),
    ('<link rel="stylesheet" href="file:///etc/hostname">', 3, "is not a file beside the deck or a web URL"),
    ('<img src="images/key.svg">', 3, "is outside the deck's folder"),  # a symbolic link to the secret
    ('<IMG SRC="../secret/id_rsa">', 3, "is outside the deck's folder"),
]


@pytest.mark.parametrize("markup, line, said", RAW_HTML, ids=[f"raw-{k}" for k in range(len(RAW_HTML))])
def test_what_raw_html_loads_must_be_a_file_inside_the_decks_folder(write_deck, secret, markup, line, said):
    deck = write_deck(f"# T\n\n{markup.replace('{secret}', str(secret))}\n\n---\n\n## Two\n\nText.\n")
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "dot.svg").write_text(DOT.format(16))
    (deck.parent / "images" / "key.svg").symlink_to(secret)
    with pytest.raises(DeckError) as caught:
        read_notebook(deck)
    err = caught.value
    assert (Path(err.path), err.line) == (deck, line) and said in err.message and "\n" not in str(err), str(err)


def test_raw_html_that_loads_files_inside_the_folder_reads(write_deck):
    deck = write_deck('# T\n\n<img src="images/dot.svg" srcset="images/dot.svg 2x" style="background: url(images/dot.svg)">'
                      '\n\n<a href="../elsewhere.pdf">a link is not a load</a> <img src="data:image/png;base64,AA==">\n')
    (deck.parent / "images").mkdir()
    (deck.parent / "images" / "dot.svg").write_text(DOT.format(16))
    read_notebook(deck)


THEMED = """---
jupyter:
  jaxdeck:
    theme: {theme}
---

# T

Text.
"""


@pytest.mark.parametrize("sheet, more, where, said", [
    ('.reveal {{ color: red; }}\n.reveal {{ background: url("../../secret/id_rsa"); }}\n', None, ("css/ours.css", 2),
     "is outside the deck's folder"),
    ('@import "more.css";\n', ".x {{ color: red; }}\n.y {{ background: url({secret}); }}\n", ("css/more.css", 2),
     "is an absolute path"),
], ids=["url", "imported-absolute"])
def test_a_theme_files_urls_must_be_files_inside_the_decks_folder(write_deck, secret, sheet, more, where, said):
    deck = write_deck(THEMED.format(theme="css/ours.css"))
    (deck.parent / "css").mkdir()
    (deck.parent / "css" / "ours.css").write_text(sheet.format(secret=secret))
    if more is not None:
        (deck.parent / "css" / "more.css").write_text(more.format(secret=secret))
    with pytest.raises(DeckError) as caught:
        read_notebook(deck)
    err = caught.value
    assert (Path(err.path), err.line) == (deck.parent / where[0], where[1]) and said in err.message, str(err)


def test_a_theme_file_named_by_an_absolute_path_says_it_is_absolute(write_deck, tmp_path):
    (tmp_path / "abs.css").write_text(":root {}\n")
    deck = write_deck(THEMED.format(theme=tmp_path / "abs.css"))
    with pytest.raises(DeckError) as caught:
        read_notebook(deck)
    assert caught.value.line == 4 and "is an absolute path" in caught.value.message, str(caught.value)


# -- the self-contained file: only files inside the page's folder are inlined

@pytest.mark.parametrize("markup, said", [
    ('<img src="../../secret/id_rsa">', "is outside the deck's files"),
    ('<img src="{secret}">', "is an absolute path"),
    ('<img src="link.svg">', "is outside the deck's files"),
    ("<style>.x { background: url(../../secret/id_rsa) }</style>", "is outside the deck's files"),
    ('<link rel="stylesheet" href="sheet.css">', "is outside the deck's files"),
], ids=["relative", "absolute", "symlink", "style", "stylesheet-url"])
def test_the_single_file_inlines_nothing_from_outside_the_pages_folder(tmp_path, secret, markup, said):
    from jaxdeck.html.single import self_contained

    page = tmp_path / "build" / "html" / "talk.html"
    page.parent.mkdir(parents=True)
    (page.parent / "link.svg").symlink_to(secret)
    (page.parent / "sheet.css").write_text(".y { background: url(../../secret/id_rsa); }\n")
    page.write_text(f"<!DOCTYPE html><html><head></head><body>{markup.replace('{secret}', str(secret))}</body></html>")
    with pytest.raises(DeckError) as caught:
        self_contained(page, Path("slides/talk.md"))
    message = str(caught.value)
    assert message.startswith("slides/talk.md: ") and said in message and "\n" not in message, message


# -- the build, end to end

ATTACKS = {
    # the deck's own path to the secret, and the path from build/html that the single file used to follow
    "raw-html": ('# T\n\n<img src="../secret/id_rsa" alt="k">\n\n---\n\n## Two\n\nText.\n', None, "talk.md:3:"),
    "raw-html-from-build": ('# T\n\n<img src="../../secret/id_rsa" alt="k">\n\n---\n\n## Two\n\nText.\n', None,
                            "talk.md:3:"),
    "theme-url": (THEMED.format(theme="ours.css"), ':root { --jd-accent: #00695c; }\n'
                  '.reveal { background-image: url("../../secret/id_rsa"); }\n', "ours.css:2:"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("attack", ATTACKS)
def test_a_self_contained_build_never_carries_a_file_from_outside_the_decks_folder(tmp_path, secret, attack):
    text, sheet, where = ATTACKS[attack]
    slides = tmp_path / "slides"
    slides.mkdir()
    (slides / "talk.md").write_text(text)
    if sheet is not None:
        (slides / "ours.css").write_text(sheet)
    done = run_cli("build", "--self-contained", "--out", "build", "slides/talk.md", cwd=tmp_path)
    line = one_line_error(done)
    assert line.startswith(f"error: slides/{where} ") and "is outside the deck's folder" in line, line
    assert not leaked(tmp_path / "build")


@pytest.mark.heavy
def test_a_picture_swapped_for_a_link_to_outside_after_a_build_is_not_copied(tmp_path, secret):
    slides = tmp_path / "slides"
    (slides / "images").mkdir(parents=True)
    (slides / "images" / "dot.svg").write_text(DOT.format(16))
    (slides / "talk.md").write_text("# T\n\n![dot](images/dot.svg)\n\n---\n\n## Two\n\nText.\n")
    assert run_cli("build", "--out", "build", "slides/talk.md", cwd=tmp_path).returncode == 0
    (slides / "images" / "dot.svg").unlink()
    (slides / "images" / "dot.svg").symlink_to(secret)  # the deck's text is unchanged: its notebook is kept
    line = one_line_error(run_cli("build", "--self-contained", "--out", "build", "slides/talk.md", cwd=tmp_path))
    assert line.startswith("error: slides/talk.md: ") and "'images/dot.svg' is outside the deck's folder" in line
    assert not leaked(tmp_path / "build")


@pytest.mark.heavy
def test_copies_never_land_on_another_decks_page_or_a_shared_asset(tmp_path):
    slides = tmp_path / "slides"
    (slides / "assets" / "reveal.js" / "dist").mkdir(parents=True)
    (slides / "assets" / "reveal.js" / "dist" / "reveal.js").write_text("document.body.textContent = 'taken over';\n")
    (slides / "other.html").write_text("<!DOCTYPE html><p>taken over</p>\n")
    (slides / "other.md").write_text("# The other deck\n\nIts page.\n\n---\n\n## Two\n\nText.\n")
    (slides / "talk.md").write_text("# T\n\n![a page](other.html)\n\n![a script](assets/reveal.js/dist/reveal.js)\n\n"
                                    "---\n\n## Two\n\nText.\n")
    done = run_cli("build", "--jobs", "1", "--out", "build", "slides/other.md", "slides/talk.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = tmp_path / "build" / "html"
    assert "taken over" not in (html / "other.html").read_text() and "The other deck" in (html / "other.html").read_text()
    reveal = (ROOT / "node_modules" / "reveal.js" / "dist" / "reveal.js").read_bytes()
    assert (html / "assets" / "reveal.js" / "dist" / "reveal.js").read_bytes() == reveal
    assert (html / "talk_files" / "other.html").read_text() == (slides / "other.html").read_text()
    assert 'src="talk_files/other.html"' in (html / "talk.html").read_text()


@pytest.mark.heavy
def test_two_decks_with_pictures_of_the_same_name_each_show_their_own(tmp_path, browser):
    """Deck a shows its images/dot.svg (16 px) as a Markdown image; deck b, in another folder, its
    own images/dot.svg (32 px) through raw HTML, and as its theme's background: each page, and each
    self-contained file, shows its own deck's picture."""
    from jaxdeck.pages import open_deck

    for name, size in (("a", 16), ("b", 32)):
        (tmp_path / name / "images").mkdir(parents=True)
        (tmp_path / name / "images" / "dot.svg").write_text(DOT.format(size))
    (tmp_path / "a" / "a.md").write_text("# A\n\n![dot](images/dot.svg)\n\n---\n\n## Two\n\nText.\n")
    (tmp_path / "b" / "b.md").write_text(THEMED.format(theme="b.css").replace(
        "Text.", '<img id="raw" src="images/dot.svg" alt="dot">\n\n---\n\n## Two\n\nText.'))
    (tmp_path / "b" / "b.css").write_text(".reveal .slides { background: url(images/dot.svg) no-repeat; }\n")
    done = run_cli("build", "--self-contained", "--out", "build", "a/a.md", "b/b.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = tmp_path / "build" / "html"
    widths = "() => [...document.images].filter(i => i.alt === 'dot').map(i => i.naturalWidth)"
    for name, size in (("a", 16), ("b", 32)):
        assert (html / f"{name}_files" / "images" / "dot.svg").read_text() == DOT.format(size)
        with open_deck(browser, html / f"{name}.html") as (page, requests):
            page.evaluate("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")
            assert page.evaluate(widths) == [size] and requests == []
        single = (tmp_path / "build" / "single" / f"{name}.html").read_text()
        assert base64.b64encode(DOT.format(size).encode()).decode() in single
    with open_deck(browser, html / "b.html") as (page, _):
        background = page.evaluate("getComputedStyle(document.querySelector('.reveal .slides')).backgroundImage")
        assert background.endswith('/build/html/b_files/images/dot.svg")'), background
        loaded = page.evaluate("""() => new Promise(done => { const img = new Image();
            img.onload = () => done(img.naturalWidth); img.onerror = () => done(0);
            img.src = getComputedStyle(document.querySelector('.reveal .slides')).backgroundImage.slice(5, -2); })""")
        assert loaded == 32


def test_a_notes_picture_in_the_handout_is_the_decks_copy():
    from jaxdeck.pdf.export import render_notes

    notes = render_notes(["Say it with ![a dot](images/dot.svg)."], "talk_files")
    assert 'src="talk_files/images/dot.svg"' in notes


def test_copies_are_named_in_the_page_and_everything_else_is_left_as_written():
    from jaxdeck.html.loads import at_copies

    markup = ('<p>A &amp; B &#169; <!-- note --><a href="images/x.pdf">link</a> '
              '<img src="images/dot.svg" alt="x" /> <img src="https://example.org/a.png"> '
              '<img src="data:image/png;base64,AA=="> <img src="#frag"></p>\n'
              '<div style="color: red; background: url(images/bg.svg)">x</div>\n'
              '<style>\n.a { color: red }\n.b { background: url("images/bg.svg") }\n</style>')
    assert at_copies(markup, "my talk_files") == markup.replace(
        '<img src="images/dot.svg" alt="x" />', '<img src="my%20talk_files/images/dot.svg" alt="x" />').replace(
        "url(images/bg.svg)", "url(my%20talk_files/images/bg.svg)").replace(
        'url("images/bg.svg")', 'url("my%20talk_files/images/bg.svg")')
    assert at_copies(markup, None) == markup
