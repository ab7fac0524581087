"""The live save (jaxdeck/live/saving.py): a deck saved with no edit is left byte for byte, an edit keeps
the deck's line endings, final newline and header, and a save cut short leaves the old deck whole.

Through the real contents manager, through a real server's REST API as the slideshow saves, and
through a contents manager in a process that dies at the moment its new deck is written and not
yet renamed into place. The MyST decks are real ones, copied from the tutorial corpus."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from urllib.parse import quote

import nbformat
import pytest

from jaxdeck.atomic import MARK
from jaxdeck.live.contents import DeckContentsManager
from support import ROOT, run_cli

FIXTURES = ROOT / "tests" / "fixtures"
#: a MyST notebook of the project's own, with jupytext's full header
MYST = FIXTURES / "notebooks" / "myst_autodiff.md"
#: jupytext's version lines of a MyST header, which a header written by hand may not have
VERSION_LINES = ("    format_version:", "    jupytext_version:")

KINDS = ["markdown", "myst", "myst-short-header"]
#: every spelling a save changed before (the plain LF decks with a final newline came back as they were)
SPELLINGS = [(kind, ending, final) for kind in KINDS for ending in ("LF", "CRLF") for final in (True, False)
             if (kind, ending, final) not in {("markdown", "LF", True), ("myst", "LF", True)}]


def deck_bytes(kind: str, ending: str, final: bool) -> bytes:
    """A deck of ``kind`` written with ``ending`` line endings, ending in a newline or not."""
    if kind == "markdown":
        text = (FIXTURES / "present_demo.md").read_text(encoding="utf-8")
    else:
        text = MYST.read_text(encoding="utf-8")
        if kind == "myst-short-header":
            lines = text.split("\n")
            header = lines.index("---", 1)
            text = "\n".join([line for line in lines[:header] if not line.startswith(VERSION_LINES)] + lines[header:])
    text = text.rstrip("\n") + ("\n" if final else "")
    return (text.replace("\n", "\r\n") if ending == "CRLF" else text).encode("utf-8")


@pytest.fixture
def repo(tmp_path):
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    return tmp_path


def save(cm, path, nb):
    # as the server does: the model arrives as JSON from the browser
    return cm.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(json.loads(json.dumps(nb)))},
                   path)


def edit(nb) -> tuple[str, str]:
    """Edit the first plain Markdown paragraph line of ``nb`` (no MyST, no HTML); its old and new text."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.split("\n"):
            if len(line) > 20 and line[0].isalpha() and not any(c in line for c in "{}<>`$[]():*_|"):
                cell.source = cell.source.replace(line, line + " (edited live)", 1)
                return line, line + " (edited live)"
    raise AssertionError("no plain Markdown line to edit")


@pytest.mark.parametrize("kind,ending,final", SPELLINGS, ids=lambda v: v if isinstance(v, str) else
                         ("final-newline" if v else "no-final-newline"))
def test_a_save_with_no_edit_leaves_the_deck_byte_for_byte(repo, kind, ending, final):
    deck = repo / "slides" / "talk.md"
    original = deck_bytes(kind, ending, final)
    deck.write_bytes(original)
    cm = DeckContentsManager(root_dir=str(repo))
    save(cm, "slides/talk.md", cm.get("slides/talk.md")["content"])
    assert deck.read_bytes() == original
    assert sorted(p.name for p in deck.parent.iterdir()) == ["talk.md"]  # no backup, no temporary file left


@pytest.mark.parametrize("kind,ending,final", SPELLINGS, ids=lambda v: v if isinstance(v, str) else
                         ("final-newline" if v else "no-final-newline"))
def test_a_save_with_an_edit_changes_only_the_edited_line(repo, kind, ending, final):
    deck = repo / "slides" / "talk.md"
    original = deck_bytes(kind, ending, final)
    deck.write_bytes(original)
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/talk.md")["content"]
    old, new = edit(nb)
    save(cm, "slides/talk.md", nb)
    assert original.count(old.encode()) == 1
    assert deck.read_bytes() == original.replace(old.encode(), new.encode())


def test_a_save_through_the_servers_api_keeps_the_deck_as_written_and_its_mode(repo):
    """PUT /api/contents/... as the live slideshow saves: a CRLF deck with no final newline and a MyST deck
    whose header has no version lines, saved unchanged and then with an edit."""
    from jaxdeck.live.server import start_server

    decks = {"crlf.md": deck_bytes("markdown", "CRLF", False), "myst.md": deck_bytes("myst-short-header", "LF", True)}
    for name, data in decks.items():
        (repo / "slides" / name).write_bytes(data)
        (repo / "slides" / name).chmod(0o640)
    with start_server(repo, port=0) as server:
        def call(method: str, path: str, body: dict | None = None) -> dict:
            request = urllib.request.Request(server.api(f"contents/{quote(path)}") + ("" if body else "?type=notebook"),
                                             method=method, data=json.dumps(body).encode() if body else None,
                                             headers={"Authorization": f"token {server.token}",
                                                      "Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)

        for name, original in decks.items():
            path = f"slides/{name}"
            model = call("GET", path)
            call("PUT", path, {"type": "notebook", "format": "json", "content": model["content"]})
            assert (repo / path).read_bytes() == original, name
            nb = nbformat.from_dict(model["content"])
            old, new = edit(nb)
            saved = call("PUT", path, {"type": "notebook", "format": "json", "content": nb})
            assert saved["type"] == "notebook" and saved["path"] == path
            assert (repo / path).read_bytes() == original.replace(old.encode(), new.encode()), name
            assert (repo / path).stat().st_mode & 0o777 == 0o640
        assert sorted(p.name for p in (repo / "slides").iterdir()) == sorted(decks)


#: a contents manager that dies (as under SIGKILL: no cleanup) when it renames a new deck into place
DIES_AT_THE_RENAME = """
import os, sys
from pathlib import Path
import nbformat
from jaxdeck.live.contents import DeckContentsManager

root, deck = sys.argv[1], Path(sys.argv[2])
replace = os.replace

def dying(source, target, *args, **kwargs):
    if Path(target).resolve() == deck.resolve():
        Path(root, "written.md").write_bytes(Path(source).read_bytes())  # what the new deck held
        os._exit(9)
    return replace(source, target, *args, **kwargs)

os.replace = dying
cm = DeckContentsManager(root_dir=root)
nb = cm.get("slides/talk.md")["content"]
nb.cells[0].source += "\\n\\nAn edit saved as the server dies."
cm.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(nb)}, "slides/talk.md")
"""


def test_a_server_that_dies_before_its_new_deck_is_renamed_leaves_the_old_deck_whole(repo):
    deck = repo / "slides" / "talk.md"
    original = deck_bytes("markdown", "LF", True)
    deck.write_bytes(original)
    done = subprocess.run([sys.executable, "-c", DIES_AT_THE_RENAME, str(repo), str(deck)], cwd=repo,
                          env=dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'tests'}"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stdout + done.stderr  # it died at the rename, after the new deck was written
    assert deck.read_bytes() == original
    assert b"An edit saved as the server dies." in (repo / "written.md").read_bytes()
    left = [p for p in deck.parent.iterdir() if p != deck]
    # beside it, hidden, with the deck's mode (jaxdeck.atomic's temporary name)
    assert len(left) == 1 and left[0].name.startswith(".") and MARK in left[0].name
    assert left[0].stat().st_mode == deck.stat().st_mode
    assert left[0].read_bytes() == (repo / "written.md").read_bytes()
    # the next save, its writer gone, takes the leftover away
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/talk.md")["content"]
    edit(nb)
    save(cm, "slides/talk.md", nb)
    assert sorted(p.name for p in deck.parent.iterdir()) == ["talk.md"]


#: Jupyter's own save (the copy aside, then the deck rewritten in place) killed as it writes the deck
KILLED_IN_JUPYTERS_SAVE = """
import os, sys
from jupyter_server.services.contents.fileio import atomic_writing

with atomic_writing(sys.argv[1], text=True) as handle:
    os._exit(9)
"""


def test_an_empty_deck_beside_jupyters_copy_of_it_names_the_copy_in_one_line(repo):
    deck = repo / "slides" / "talk.md"
    original = deck_bytes("markdown", "LF", True)
    deck.write_bytes(original)
    done = subprocess.run([sys.executable, "-c", KILLED_IN_JUPYTERS_SAVE, str(deck)], timeout=60)
    assert done.returncode == 9 and deck.read_bytes() == b""
    assert (repo / "slides" / ".~talk.md").read_bytes() == original
    built = run_cli("build", "slides/talk.md", cwd=repo, timeout=120)
    assert built.returncode != 0 and "Traceback" not in built.stderr
    line = built.stderr.strip()
    assert len(line.splitlines()) == 1, built.stderr
    assert "slides/talk.md:1: the deck is empty; its last good copy is slides/.~talk.md" in line, line
    assert "cp slides/.~talk.md slides/talk.md" in line, line


def test_a_save_in_the_server_is_a_new_file_for_other_files_too(repo):
    """A Markdown file that is not a deck, saved as text: the same rename, never a truncate in place."""
    notes = repo / "notes.md"
    notes.write_text("old notes\n")
    held = open(notes, "rb")  # a reader that opened the old file keeps reading the old file
    try:
        cm = DeckContentsManager(root_dir=str(repo))
        cm.save({"type": "file", "format": "text", "content": "new notes\n"}, "notes.md")
        assert notes.read_text() == "new notes\n"
        assert held.read() == b"old notes\n"
    finally:
        held.close()
    assert sorted(p.name for p in repo.iterdir()) == ["jupytext.toml", "notes.md", "slides"]


def swapped_for_a_link(repo, target, owner: str) -> tuple[dict, bytes]:
    """The slideshow's notebook of ``slides/talk.md``, read before the deck is swapped for a link to
    ``target`` that ``owner`` owns ('nobody' or this user), edited; and ``target``'s bytes then."""
    deck = repo / "slides" / "talk.md"
    deck.write_bytes(deck_bytes("markdown", "LF", True))
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/talk.md")["content"]
    edit(nb)
    deck.unlink()
    deck.symlink_to(target)
    if owner == "nobody":
        if os.geteuid() != 0:
            pytest.skip("a link another user owns needs root to make")
        import pwd
        entry = pwd.getpwnam("nobody")
        os.lchown(deck, entry.pw_uid, entry.pw_gid)
    return nb, target.read_bytes()


@pytest.mark.parametrize("owner,inside", [("nobody", False), ("nobody", True), ("self", False)])
def test_a_save_never_writes_through_a_link_of_anothers_or_out_of_the_servers_folder(tmp_path, owner, inside):
    """A slides/ folder others may write: one swaps the deck for a link to a file of the presenter's."""
    from tornado.web import HTTPError

    repo = tmp_path / "repo"
    (repo / "slides").mkdir(parents=True)
    shutil.copy(ROOT / "jupytext.toml", repo / "jupytext.toml")
    victim = (repo / "notes.txt") if inside else (tmp_path / "victim.txt")
    victim.write_bytes(b"the presenter's own file\n")
    nb, before = swapped_for_a_link(repo, victim, owner)
    cm = DeckContentsManager(root_dir=str(repo))
    with pytest.raises(HTTPError) as refused:
        save(cm, "slides/talk.md", nb)
    assert refused.value.status_code == 403
    message = refused.value.log_message
    assert len(message.splitlines()) == 1, message
    assert f"slides/talk.md is a link to {victim}" in message and "not saved" in message, message
    assert victim.read_bytes() == before
    assert (repo / "slides" / "talk.md").is_symlink()
    assert sorted(p.name for p in (repo / "slides").iterdir()) == ["talk.md"]


def test_a_save_through_the_servers_api_refuses_a_link_of_anothers_to_a_file_outside(tmp_path):
    from jaxdeck.live.server import start_server

    repo = tmp_path / "repo"
    (repo / "slides").mkdir(parents=True)
    shutil.copy(ROOT / "jupytext.toml", repo / "jupytext.toml")
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"VICTIM-ORIGINAL\n")
    nb, before = swapped_for_a_link(repo, victim, "nobody")
    with start_server(repo, port=0) as server:
        request = urllib.request.Request(server.api(f"contents/{quote('slides/talk.md')}"), method="PUT",
                                         data=json.dumps({"type": "notebook", "format": "json", "content": nb}).encode(),
                                         headers={"Authorization": f"token {server.token}",
                                                  "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 403
        body = json.loads(refused.value.read())
    assert "slides/talk.md is a link to" in body["message"] and "not saved" in body["message"], body
    assert victim.read_bytes() == before


def test_a_save_through_a_link_of_ones_own_to_a_deck_inside_writes_the_deck_it_leads_to(repo):
    real = repo / "slides" / "real.md"
    original = deck_bytes("markdown", "LF", True)
    real.write_bytes(original)
    (repo / "slides" / "talk.md").symlink_to("real.md")
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/talk.md")["content"]
    old, new = edit(nb)
    save(cm, "slides/talk.md", nb)
    assert (repo / "slides" / "talk.md").is_symlink()
    assert real.read_bytes() == original.replace(old.encode(), new.encode())
