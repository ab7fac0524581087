"""MyST tutorial decks in the live view: rewritten Markdown, Jupyter Book tags, lossless saves.

The contents manager alone (no server, no browser): every MyST/jupytext fixture in
tests/fixtures/notebooks/ is served with no raw MyST in its Markdown cells, its tags turned
into RISE/JupyterLab metadata, and saved back byte for byte; a one-line edit in a rewritten
cell changes that line alone.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from jaxdeck.html.myst import cell_view
from jaxdeck.live.contents import KERNELSPEC, DeckContentsManager, live_css
from jaxdeck.live.myst_view import MYST_KEY
from jaxdeck.read import images

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "tests" / "fixtures" / "notebooks").glob("*.md"))
MYST_NOTEBOOKS = [p for p in NOTEBOOKS if p.stem.startswith("myst_")]
REMOTE_IMAGE = re.compile(r"!\[[^\]]*\]\(((?:https?:)?//[^)\s]+)\)")
#: raw MyST that JupyterLab would show as text
RAW_MYST = re.compile(r"\{[\w:-]+\}`|^\s*\([\w.:-]+\)=\s*$|^\s*```+\s*\{|^\s*:::+\s*\{", re.MULTILINE)


def live_repo(tmp_path: Path, deck: Path) -> Path:
    """jupytext.toml, slides/DECK, and a cached copy of every remote image (no network needed)."""
    (tmp_path / "slides").mkdir(parents=True)
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    shutil.copy(deck, tmp_path / "slides" / deck.name)
    for url in REMOTE_IMAGE.findall(deck.read_text(encoding="utf-8")):
        target = tmp_path / "build" / "images" / f"{images.key(url)}.svg"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("<svg xmlns='http://www.w3.org/2000/svg' width='80' height='20'/>")
    return tmp_path


def save(cm, path, nb):
    # as the server does: the model arrives as JSON from the browser, with the running kernel's metadata
    nb = nbformat.from_dict(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3", "version": "3.11.0"}
    cm.save({"type": "notebook", "format": "json", "content": nb}, path)


def served(tmp_path, deck):
    repo = live_repo(tmp_path, deck)
    cm = DeckContentsManager(root_dir=str(repo))
    name = f"slides/{deck.name}"
    return repo, cm, name, cm.get(name)["content"]


@pytest.mark.parametrize("deck", NOTEBOOKS, ids=lambda p: p.stem)
def test_served_markdown_has_no_raw_myst_and_an_unchanged_save_is_the_same_bytes(tmp_path, deck):
    repo, cm, name, nb = served(tmp_path, deck)
    original = (repo / name).read_bytes()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            assert not RAW_MYST.search(cell.source), cell.source
    save(cm, name, nb)
    assert (repo / name).read_bytes() == original


@pytest.mark.parametrize("deck", NOTEBOOKS, ids=lambda p: p.stem)
def test_tags_become_live_metadata_and_are_not_saved(tmp_path, deck):
    repo, cm, name, nb = served(tmp_path, deck)
    original = (repo / name).read_bytes()
    views = [cell_view(c) for c in nb.cells]
    for cell, view in zip(nb.cells, views):
        jupyter = cell.metadata.get("jupyter") or {}
        if view.removed:
            assert cell.metadata["slideshow"]["slide_type"] == "skip"
        elif cell.cell_type == "code":
            assert bool(jupyter.get("source_hidden")) == (not view.show_input or view.input_collapsed)
            assert bool(jupyter.get("outputs_hidden")) == (not view.show_output or view.output_collapsed)
    save(cm, name, nb)
    assert (repo / name).read_bytes() == original


def test_the_fixtures_exercise_every_live_rewrite(tmp_path):
    """The corpus has what the tests above check: rewritten cells, admonitions, each tag."""
    seen = {"rewritten": 0, "admonition": 0, "skip": 0, "source_hidden": 0, "outputs_hidden": 0}
    for k, deck in enumerate(NOTEBOOKS):
        *_, nb = served(tmp_path / str(k), deck)
        for cell in nb.cells:
            seen["rewritten"] += MYST_KEY in cell.metadata.get("jaxdeck", {})
            seen["admonition"] += cell.cell_type == "markdown" and '<div class="admonition' in cell.source
            seen["skip"] += cell.metadata.get("slideshow", {}).get("slide_type") == "skip"
            for key in ("source_hidden", "outputs_hidden"):
                seen[key] += bool((cell.metadata.get("jupyter") or {}).get(key))
    assert all(seen.values()), seen


def edits_in_rewritten_cells(nb):
    """(cell, line) of lines worth editing in rewritten cells: a plain prose line, and a line
    the rewrite changed (a role made code), when there are such."""
    found = []
    for index, cell in enumerate(nb.cells):
        original = cell.metadata.get("jaxdeck", {}).get(MYST_KEY)
        if cell.cell_type != "markdown" or original is None:
            continue
        lines = cell.source.split("\n")
        kept = set(original.split("\n"))
        for want_kept in (True, False):
            number = next((k for k, line in enumerate(lines) if len(line) > 20 and lines.count(line) == 1
                           and not line.lstrip().startswith("<") and (line in kept) == want_kept), None)
            if number is not None and (index, number) not in found:
                found.append((index, number))
    return found


@pytest.mark.parametrize("deck", MYST_NOTEBOOKS, ids=lambda p: p.stem)
def test_an_edit_in_a_rewritten_cell_changes_only_that_line(tmp_path, deck):
    repo, cm, name, nb = served(tmp_path, deck)
    edits = edits_in_rewritten_cells(nb)
    assert edits
    for cell_index, line_index in edits[:6]:
        before = (repo / name).read_text(encoding="utf-8").split("\n")
        lines = nb.cells[cell_index].source.split("\n")
        old = lines[line_index]
        lines[line_index] = old + " (edited)"
        nb.cells[cell_index].source = "\n".join(lines)
        # what the browser holds: the live text; the stash travels in the cell's metadata
        save(cm, name, nb)
        after = (repo / name).read_text(encoding="utf-8").split("\n")
        changed = [k for k, (a, b) in enumerate(zip(before, after)) if a != b]
        assert len(after) == len(before) and len(changed) == 1, (old, changed)
        assert after[changed[0]] == before[changed[0]] + " (edited)"
        # the next edit starts from the served view of what is now on disk, as after a reload
        nb = cm.get(name)["content"]


def test_a_hand_written_myst_cell_round_trips_edits_next_to_targets_roles_and_admonitions(tmp_path):
    text = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
            "    format_version: 0.13\n    jupytext_version: 1.16.4\nkernelspec:\n  display_name: Python 3\n"
            "  language: python\n  name: python3\n---\n\n(intro)=\n# A tutorial\n\n"
            "Use {func}`jax.jit` to compile a function.\n\n```{note}\nTracing runs the function once.\n```\n\n"
            "Plain text.\n\n```{code-cell}\n:tags: [remove-cell]\n\nimport os\n```\n\n"
            "```{code-cell}\n:tags: [hide-input]\n\nprint(1)\n```\n")
    deck = tmp_path / "src" / "tutorial.md"
    deck.parent.mkdir()
    deck.write_text(text, encoding="utf-8")
    repo, cm, name, nb = served(tmp_path / "repo", deck)
    prose = next(c for c in nb.cells if c.cell_type == "markdown")
    assert "(intro)=" not in prose.source and "`jax.jit`" in prose.source and 'class="admonition note"' in prose.source
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata["slideshow"]["slide_type"] == "skip"
    assert code[1].metadata["jupyter"]["source_hidden"] is True
    prose.source = (prose.source.replace("# A tutorial", "# A tutorial (edited)")
                    .replace("to compile a function.", "to compile a function, once.")
                    .replace("runs the function once.", "runs the function once per shape."))
    save(cm, name, nb)
    assert (repo / name).read_text(encoding="utf-8") == (
        text.replace("# A tutorial", "# A tutorial (edited)").replace("a function.", "a function, once.")
        .replace("function once.", "function once per shape."))


def test_the_live_stylesheet_has_the_admonition_boxes():
    css = live_css("projector")
    assert ".jd-live-status" in css and ".admonition" in css and "admonition-title" in css
