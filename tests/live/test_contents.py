"""The deck contents manager alone (no server): derived notebook, pre-baked outputs, lossless save."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jaxdeck.live.contents import DeckContentsManager, merge_outputs
from jaxdeck.read import deck_to_notebook

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DECKS = [FIXTURES / "present_demo.md", ROOT / "slides" / "example.md"]


@pytest.fixture
def repo(tmp_path):
    """A repository copy: jupytext.toml, slides/ with the decks (and their images)."""
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    for deck in DECKS:
        shutil.copy(deck, tmp_path / "slides" / deck.name)
    shutil.copytree(ROOT / "slides" / "images", tmp_path / "slides" / "images")
    return tmp_path


def save(cm, path, nb):
    # as the server does: the model arrives as JSON from the browser
    cm.save({"type": "notebook", "format": "json", "content": nbformat.from_dict(nb)}, path)


@pytest.mark.parametrize("deck", DECKS, ids=lambda p: p.stem)
def test_get_is_the_slideshow_notebook_and_save_is_lossless(repo, deck):
    cm = DeckContentsManager(root_dir=str(repo))
    path = f"slides/{deck.name}"
    original = (repo / path).read_bytes()
    model = cm.get(path)
    assert model["type"] == "notebook"
    nb = model["content"]
    assert nb.cells[0].metadata["slideshow"]["slide_type"] == "slide"
    assert any(c.metadata["slideshow"]["slide_type"] == "notes" for c in nb.cells)
    assert nb.metadata["kernelspec"]["name"] == "python3"

    save(cm, path, nb)  # saving unchanged changes nothing
    assert (repo / path).read_bytes() == original

    # a later Markdown cell whose text the deck holds as written (a marker line such as {.on-light} is
    # metadata in the notebook, so a cell that has one is not its lines verbatim)
    index = [k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source in original.decode()][2]
    old = nb.cells[index].source
    nb.cells[index].source = old.replace("\n", " (edited)\n", 1) if "\n" in old else old + " (edited)"
    save(cm, path, nb)
    expected = original.decode().replace(old, nb.cells[index].source, 1)
    assert (repo / path).read_text(encoding="utf-8") == expected


def test_added_cell_is_inserted_and_nothing_else_changes(repo):
    cm = DeckContentsManager(root_dir=str(repo))
    path = "slides/example.md"
    original = (repo / path).read_text(encoding="utf-8")
    nb = cm.get(path)["content"]
    first_code = next(k for k, c in enumerate(nb.cells) if c.cell_type == "code")
    nb.cells.insert(first_code + 1, nbformat.v4.new_code_cell("y = 1"))
    save(cm, path, nb)
    fence_end = original.index("```\n", original.index("```python")) + len("```\n")
    assert (repo / path).read_text(encoding="utf-8") == (
        original[:fence_end] + "\n```python\ny = 1\n```\n" + original[fence_end:])


def test_prebaked_outputs_come_from_the_last_build(repo):
    deck = repo / "slides" / "present_demo.md"
    built = deck_to_notebook(deck)
    code = next(c for c in built.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="PREBAKED 42\n")]
    code.execution_count = 3
    (repo / "build" / "notebooks").mkdir(parents=True)
    nbformat.write(built, repo / "build" / "notebooks" / "present_demo.ipynb")
    original = deck.read_bytes()

    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/present_demo.md")["content"]
    cell = next(c for c in nb.cells if c.cell_type == "code")
    assert cell.outputs[0]["text"] == "PREBAKED 42\n" and cell.execution_count == 3
    save(cm, "slides/present_demo.md", nb)  # outputs never go into the Markdown
    assert deck.read_bytes() == original


def test_outputs_only_for_unchanged_code():
    old = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 1"), nbformat.v4.new_code_cell("b = 2")])
    for k, cell in enumerate(old.cells):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"out{k}\n")]
    new = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 10"), nbformat.v4.new_code_cell("b = 2")])
    assert merge_outputs(new, old) == 1
    assert new.cells[0].outputs == [] and new.cells[1].outputs[0]["text"] == "out1\n"


def test_broken_deck_is_a_clear_http_error(repo):
    from tornado.web import HTTPError

    (repo / "slides" / "bad.md").write_text("# Talk\n\n```python\nx = 1\n", encoding="utf-8")
    cm = DeckContentsManager(root_dir=str(repo))
    with pytest.raises(HTTPError) as err:
        cm.get("slides/bad.md")
    assert err.value.status_code == 400 and "bad.md:3" in err.value.log_message


def test_other_markdown_is_plain_jupytext(repo):
    (repo / "slides" / "README.md").write_text("# Notes\n\n---\n\ntext\n", encoding="utf-8")
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/README.md")["content"]
    assert all("jaxdeck" not in c.metadata for c in nb.cells)


def test_marker_lines_are_hidden_live_and_restored_on_save(repo):
    cm = DeckContentsManager(root_dir=str(repo))
    path = "slides/example.md"
    original = (repo / path).read_bytes()
    nb = cm.get(path)["content"]
    sources = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert not any(s.split("\n")[0].strip() in ("---", "--", ". . .", "|||") for s in sources)
    assert "## A demo cell" in sources  # the slide starts with its heading, not a rule
    save(cm, path, nb)
    assert (repo / path).read_bytes() == original


def test_prebaked_outputs_built_here_are_trusted_and_widgets_fall_back_to_their_static_view(repo, tmp_path):
    from jaxdeck import trust

    deck = repo / "slides" / "present_demo.md"
    built = deck_to_notebook(deck)
    code = next(c for c in built.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "explorer", "text/html": "<svg><circle r='3'/></svg>",
        "application/vnd.jupyter.widget-view+json": {"model_id": "gone", "version_major": 2, "version_minor": 0}})]
    (repo / "build" / "notebooks").mkdir(parents=True)
    nbformat.write(built, repo / "build" / "notebooks" / "present_demo.ipynb")
    store = tmp_path / "signatures"
    assert trust.sign(built, store)  # as a build on this machine does

    cm = DeckContentsManager(root_dir=str(repo), trust_dir=str(store))
    cell = next(c for c in cm.get("slides/present_demo.md")["content"].cells if c.cell_type == "code")
    assert cell.metadata["trusted"] is True  # JupyterLab would sanitise the SVG away otherwise
    assert set(cell.outputs[0]["data"]) == {"text/plain", "text/html"}  # the widget's model died with its kernel


def test_outputs_from_elsewhere_are_not_trusted(repo, tmp_path):
    """A build notebook this user's builds did not sign (--frozen, a build/ copied from another
    machine, an output edited since) is shown sanitised: its script never runs in the logged-in page."""
    from jaxdeck import trust

    deck = repo / "slides" / "present_demo.md"
    built = deck_to_notebook(deck)
    code = next(c for c in built.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "chart", "text/html": "<script>fetch('/api/contents')</script>"})]
    (repo / "build" / "notebooks").mkdir(parents=True)
    store = tmp_path / "signatures"
    trust.sign(built, store)
    code.outputs[0]["data"]["text/html"] = "<script>fetch('/api/kernels', {method: 'POST'})</script>"  # changed since
    nbformat.write(built, repo / "build" / "notebooks" / "present_demo.ipynb")
    for cm in (DeckContentsManager(root_dir=str(repo), trust_dir=str(store)),
               DeckContentsManager(root_dir=str(repo), trust_dir=str(tmp_path / "another-user")),
               DeckContentsManager(root_dir=str(repo))):
        cell = next(c for c in cm.get("slides/present_demo.md")["content"].cells if c.cell_type == "code")
        assert cell.metadata["trusted"] is False and cell.outputs  # shown, sanitised


def test_notes_marker_and_live_settings_are_taken_out_and_put_back(repo):
    cm = DeckContentsManager(root_dir=str(repo))
    path = "slides/example.md"
    original = (repo / path).read_bytes()
    nb = cm.get(path)["content"]
    notes = [c for c in nb.cells if c.metadata["slideshow"]["slide_type"] == "notes"]
    assert notes and not any(c.source.startswith("Note:") for c in notes)
    rise = nb.metadata["rise"]
    assert (rise["width"], rise["height"], rise["center"]) == ("1280", "720", False)
    assert "title_html" in nb.metadata["jaxdeck_live"]
    save(cm, path, nb)
    assert (repo / path).read_bytes() == original  # no `rise:` header, every `Note:` back in place


def test_the_live_tools_come_with_the_chalkboard_the_server_serves_unless_the_deck_turns_them_off(repo):
    cm = DeckContentsManager(root_dir=str(repo))
    tools = cm.get("slides/example.md")["content"].metadata["jaxdeck_live"]["tools"]
    # RISE's page is BASE/rise/slides/example.md; `jaxdeck present` serves the package at BASE/static/
    assert tools["chalkboard"]["script"] == "../../static/chalkboard/plugin.js"
    (repo / "slides" / "plain.md").write_text("---\njupyter:\n  jaxdeck:\n    tools: false\n---\n\n# Plain\n")
    assert "tools" not in cm.get("slides/plain.md")["content"].metadata["jaxdeck_live"]


def test_incremental_true_serves_the_slides_lists_as_steps_and_saves_back_what_was_written(repo):
    shutil.copy(FIXTURES / "spellings" / "stepwise.md", repo / "slides" / "stepwise.md")
    cm, path = DeckContentsManager(root_dir=str(repo)), "slides/stepwise.md"
    original = (repo / path).read_text(encoding="utf-8")
    nb = cm.get(path)["content"]
    served = {c.metadata["slideshow"]["slide_type"] + ":" + c.source for c in nb.cells if c.cell_type == "markdown"}
    every = next(s for s in served if "Every list" in s)
    assert every.count('<li class="fragment">') == 4 and '<ul class="incremental">' in every
    assert any(s.startswith("notes:") and "- a note's item" in s for s in served)  # notes stay Markdown
    assert not any("nonincremental" in s and "fragment" in s for s in served)
    save(cm, path, nb)
    assert (repo / path).read_text(encoding="utf-8") == original
    cell = next(c for c in nb.cells if "Every list" in c.source)
    cell.source = cell.source.replace(">two</li>", ">two and a half</li>")
    save(cm, path, nb)
    assert (repo / path).read_text(encoding="utf-8") == original.replace("- two\n", "- two and a half\n")


def test_the_stylesheet_beside_a_deck_is_its_theme_and_the_live_rules(repo):
    cm = DeckContentsManager(root_dir=str(repo))
    sheet = cm.get("slides/example.css", type="file")
    assert sheet["mimetype"] == "text/css"
    assert "jaxdeck \"projector\"" in sheet["content"] and ".jd-live-status" in sheet["content"]
    assert cm.get("slides/rise.css", type="file")["content"] == ""
    (repo / "slides" / "example.css").write_text(".reveal h2 { color: teal; }\n")
    assert cm.get("slides/example.css", type="file")["content"].endswith(".reveal h2 { color: teal; }\n")


def test_a_myst_deck_keeps_its_own_kernel_in_the_header(repo):
    text = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
            "    format_version: 0.13\n    jupytext_version: 1.16.4\nkernelspec:\n  display_name: JAX (CPU)\n"
            "  language: python\n  name: jax-cpu\n---\n\n# A tutorial\n\n```{code-cell}\nx = 1\n```\n\n## More\n\ntext\n")
    (repo / "slides" / "tutorial.md").write_text(text, encoding="utf-8")
    cm = DeckContentsManager(root_dir=str(repo))
    nb = cm.get("slides/tutorial.md")["content"]
    assert nb.metadata["kernelspec"]["name"] == "python3"  # the live kernel is this environment's
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}  # as the kernel reports it
    nb.cells[-1].source = nb.cells[-1].source.replace("text", "new text")
    save(cm, "slides/tutorial.md", nb)
    assert (repo / "slides" / "tutorial.md").read_text(encoding="utf-8") == text.replace("\ntext\n", "\nnew text\n")
