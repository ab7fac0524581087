"""Tutorial notebooks as decks: every file in tests/fixtures/notebooks/ (MyST and jupytext Markdown).

Each fixture is read in its own format, goes back to the very same bytes through jupytext
(the repository's configuration, the file's format), and a live save of a one-line edit
changes that line alone. A new fixture is covered by dropping it into the folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

from jaxdeck.decks import find_decks
from jaxdeck.errors import DeckError
from jaxdeck.live.contents import KERNELSPEC, DeckContentsManager
from jaxdeck.read import deck_to_notebook, images
from jaxdeck.read.formats import file_format, jupytext_config, write_back, write_format
from jaxdeck.read.source import read_notebook, round_trip_difference
from jaxdeck.read.structure import SLIDE, SUBSLIDE, slide_count, slide_pieces

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "tests" / "fixtures" / "notebooks").glob("*.md"))
REMOTE_IMAGE = re.compile(r"!\[[^\]]*\]\(((?:https?:)?//[^)\s]+)\)")
VERSION = re.compile(r"^(\s*jupytext_version:).*$", re.MULTILINE)


def seed_images(build: Path, *decks: Path) -> None:
    """A cached copy of every remote image the decks show: reading them needs no network."""
    for deck in decks:
        for url in REMOTE_IMAGE.findall(deck.read_text(encoding="utf-8")):
            target = build / "images" / f"{images.key(url)}.svg"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("<svg xmlns='http://www.w3.org/2000/svg' width='80' height='20'/>")


def header_of(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


def version_aside(text: str) -> str:
    return VERSION.sub(r"\1 X", text)


@pytest.fixture
def build(tmp_path):
    folder = tmp_path / "build"
    seed_images(folder, *NOTEBOOKS)
    return folder


def test_the_corpus_covers_the_constructs():
    texts = {p.name: p.read_text(encoding="utf-8") for p in NOTEBOOKS}
    myst = [n for n, t in texts.items() if (header_of(t).get("jupytext") or {}).get("text_representation", {})
            .get("format_name") == "myst" and "kernelspec" in header_of(t)]
    markdown = [n for n, t in texts.items() if "jupyter" in header_of(t) and "\n---\n\n" not in t.split("---\n", 2)[2]]
    assert len(NOTEBOOKS) >= 8 and len(myst) >= 5 and len(markdown) >= 2
    every = "\n".join(texts.values())
    for construct in ["```{code-cell}\n", "```{code-cell} ipython3\n", "\n+++\n", '\n+++ {"slideshow"', "%xmode",
                      "{func}`", "{ref}`", "{doc}`", "{class}`", "{math}`", "```{note}", "```{warning}", "```{tip}",
                      ":::{note}", ":::{warning}", ":::{tip}", "\n$$\n", "![badge](https://img.shields.io/"]:
        assert construct in every, construct
    for tag in ["remove-cell", "remove-input", "remove-output", "hide-input", "hide-output", "raises-exception"]:
        assert f"[{tag}]" in every or f'["{tag}"]' in every, tag
    assert re.search(r"^\(\w[\w-]*\)=$", every, re.MULTILINE) and re.search(r"[^$]\$[^$\n]+\$[^$]", every)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_reads_in_its_own_format(path, build):
    text = path.read_text(encoding="utf-8")
    nb = deck_to_notebook(path, build=build)
    said = (header_of(text).get("jupytext") or header_of(text).get("jupyter", {}).get("jupytext"))["text_representation"]
    assert file_format(path, text) == {"extension": ".md", "format_name": said["format_name"]}
    assert nb.metadata["jupytext"]["text_representation"]["format_name"] == said["format_name"]
    assert write_format(nb)["format_name"] == said["format_name"]
    assert slide_count(nb) >= 3 and nb.cells[0].metadata["jaxdeck"]["slide_type"] == SLIDE
    assert all("jaxdeck" in cell.metadata for cell in nb.cells)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.source.startswith(("```", ":tags:")) for c in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_round_trip_is_byte_identical(path, build):
    text = path.read_text(encoding="utf-8")
    nb = deck_to_notebook(path, build=build)
    again = nbformat.reads(nbformat.writes(nb), as_version=4)  # as the notebook is stored and sent
    written = jupytext.writes(again, fmt=write_format(again), config=jupytext_config(path))
    assert version_aside(written) == version_aside(text)
    assert write_back(again, path) == text  # and the version line as the file has it
    assert round_trip_difference(path) is None


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem.startswith("myst")], ids=lambda p: p.stem)
def test_myst_cells_are_kept_whole_and_their_breaks_recorded(path, build):
    text = path.read_text(encoding="utf-8")
    plain = jupytext.reads(text, fmt="md")
    nb = deck_to_notebook(path, build=build)
    assert [c.source for c in nb.cells] == [c.source for c in plain.cells]
    for cell in nb.cells:
        breaks = cell.metadata["jaxdeck"].get("breaks", [])
        lines = cell.source.split("\n")
        for mark in breaks:
            start = lines[mark["offset"]]
            assert start.startswith("#") or re.match(r"^\(.+\)=$", start), start  # a heading, or its target
            assert mark["line"] == cell.metadata["jaxdeck"]["line"] + mark["offset"]
            assert text.split("\n")[mark["line"] - 1] == start
    kinds = [info["slide_type"] for cell in nb.cells for info, _ in slide_pieces(cell)]
    assert slide_count(nb) == sum(k in (SLIDE, SUBSLIDE) for k in kinds) == nb.metadata["jaxdeck_build"]["slides"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_reading_hands_what_it_learnt_to_the_one_writer_of_the_build_record(path, build):
    from jaxdeck.read import read_deck

    nb, learnt = read_deck(path, build=build)
    assert "jaxdeck_build" not in nb.metadata  # the stage runner writes it, after the stage
    assert (learnt.source, learnt.slides) == (str(path), slide_count(nb))
    assert (learnt.format is not None) == (write_format(deck_to_notebook(path, build=build)) != "md")
    record = {"schema": 1, **{k: v for k, v in vars(learnt).items() if v is not None}}
    assert deck_to_notebook(path, build=build).metadata["jaxdeck_build"] == record


def test_a_myst_cell_with_several_headings_keeps_its_targets_with_them(build):
    nb = deck_to_notebook(ROOT / "tests" / "fixtures" / "notebooks" / "myst_jaxprs.md", build=build)
    cell = next(c for c in nb.cells if "### Types in the jaxpr" in c.source)
    pieces = slide_pieces(cell)
    assert [info["slide_type"] for info, _ in pieces] == ["-", SUBSLIDE, SLIDE]
    assert pieces[1][1].startswith("(jaxpr-types)=\n### Types") and pieces[2][1].startswith("## Transformed")


def test_markdown_notebooks_are_split_at_headings(build):
    path = ROOT / "tests" / "fixtures" / "notebooks" / "md_control_flow.md"
    nb = deck_to_notebook(path, build=build)
    starts = [c.source.split("\n")[0] for c in nb.cells if c.metadata["jaxdeck"]["slide_type"] == SLIDE]
    assert starts == ["(control-flow)=", "## Decisions on shapes are fine", "## Decisions on values are not", "## Loops"]


def live_repo(tmp_path: Path, deck: Path) -> Path:
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copy(deck, tmp_path / "slides" / deck.name)
    seed_images(tmp_path / "build", deck)
    return tmp_path


def save(cm, path, nb):
    cm.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(nb)}, path)


def one_line_edits(nb) -> list[tuple[int, int]]:
    """(cell, line) of a prose line and of a code line, each unique in its cell."""
    found = []
    for kind in ("markdown", "code"):
        for index, cell in enumerate(nb.cells):
            lines = cell.source.split("\n")
            if cell.cell_type != kind or len(lines) < 3:
                continue
            number = next((k for k, line in enumerate(lines) if len(line) > 20 and lines.count(line) == 1), None)
            if number is not None:
                found.append((index, number))
                break
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_live_save_changes_only_the_edited_line(tmp_path, path):
    repo = live_repo(tmp_path, path)
    cm = DeckContentsManager(root_dir=str(repo))
    name = f"slides/{path.name}"
    original = (repo / name).read_text(encoding="utf-8")
    nb = cm.get(name)["content"]
    # what JupyterLab does once the kernel is up: the running kernel's spec and language
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3", "version": "3.11.0"}
    save(cm, name, nb)
    assert (repo / name).read_text(encoding="utf-8") == original  # an unchanged save writes the same bytes

    for cell_index, line_index in one_line_edits(nb):
        before = (repo / name).read_text(encoding="utf-8").split("\n")
        lines = nb.cells[cell_index].source.split("\n")
        old = lines[line_index]
        lines[line_index] = old + "  # edited" if nb.cells[cell_index].cell_type == "code" else old + " (edited)"
        nb.cells[cell_index].source = "\n".join(lines)
        save(cm, name, nb)
        after = (repo / name).read_text(encoding="utf-8").split("\n")
        changed = [k for k, (a, b) in enumerate(zip(before, after)) if a != b]
        assert len(after) == len(before) and len(changed) == 1, changed
        assert before[changed[0]] == old and after[changed[0]] == lines[line_index]


def test_format_detection():
    assert file_format(Path("talk.md"), "# T\n\n```python\n1\n```\n") == {"extension": ".md", "format_name": "markdown"}
    assert file_format(Path("nb.md"), "# T\n\n```{code-cell}\n1\n```\n")["format_name"] == "myst"  # no header needed
    assert file_format(Path("talk.md"), "# T\n\n:::{note}\nhi\n:::\n")["format_name"] == "markdown"  # not pandoc
    header = "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n---\n\n# T\n"
    assert file_format(Path("nb.md"), header)["format_name"] == "myst"


@pytest.mark.parametrize("deck", find_decks(None, ROOT / "slides"), ids=lambda p: p.stem)
def test_plain_decks_are_written_as_markdown_with_the_repository_filters(deck):
    nb, _, learnt = read_notebook(deck)
    assert write_format(nb) == "md"
    assert nb.metadata["jupytext"]["notebook_metadata_filter"] == jupytext_config(deck).notebook_metadata_filter
    assert learnt.format is None and "format" not in nb.metadata.get("jaxdeck_build", {})


def test_a_header_that_sets_its_own_filters_keeps_them(write_deck):
    text = ("---\njupytext:\n  cell_metadata_filter: -all\n  formats: ipynb,md:myst\n  text_representation:\n"
            "    extension: .md\n    format_name: myst\n    format_version: 0.13\n    jupytext_version: 1.16.4\n"
            "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n# T\n\n"
            "```{code-cell}\n:tags: [hide-input]\n\n1 + 1\n```\n\n## Two\n\ntext\n")
    deck = write_deck(text)
    nb = deck_to_notebook(deck)
    assert nb.metadata["jupytext"]["cell_metadata_filter"] == "-all"  # as the header says
    assert write_back(nb, deck) == text  # the tags stay all the same: jaxdeck writes with its own filter


def test_a_broken_myst_cell_is_a_deck_error(write_deck):
    deck = write_deck("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n---\n\n# T\n\n"
                      "```{code-cell}\n---\ntags: [oops\n---\n1\n```\n")
    with pytest.raises(DeckError) as caught:
        deck_to_notebook(deck)
    assert "jupytext cannot read" in str(caught.value) and caught.value.line == 10 and "\n" not in str(caught.value)
