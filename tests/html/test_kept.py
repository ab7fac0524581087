"""What the export keeps in build/cache/: compiled templates (build/cache/templates/) and highlighted code
(build/cache/highlight/), used by the next process only when this user's builds signed them, made again
when the template or the code changed or the file was tampered with; the page is the same either way."""

from __future__ import annotations

import json

import jinja2
import nbformat
import pytest
from jinja2.bccache import Bucket

from jaxdeck.html import export
from jaxdeck.html.exporter import Highlight
from jaxdeck.html.kept import KeptHighlights, SignedTemplates, highlights_file, keep, templates_folder
from jaxdeck.options import DeckOptions


@pytest.fixture
def templates(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))  # this test's own signing secret
    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "page.j2").write_text("Hello {{ who }}!")
    return tmp_path


def environment(where, compiles: bool = True) -> jinja2.Environment:
    """A fresh environment (as in a new process) on the build folder ``where/build``;
    ``compiles=False``: one that cannot compile."""
    made = jinja2.Environment(loader=jinja2.FileSystemLoader(where / "themes"))
    made.bytecode_cache = SignedTemplates(templates_folder(where / "build"))
    if not compiles:
        def refused(*args, **kwargs):
            raise AssertionError("compiled, not loaded")

        made.compile = refused
    return made


def test_a_template_compiled_once_is_loaded_by_the_next_build(templates):
    assert environment(templates).get_template("page.j2").render(who="you") == "Hello you!"
    kept = list(templates_folder(templates / "build").iterdir())
    assert len(kept) == 1 and kept[0].read_bytes().split(b"\n", 1)[0]  # the signature, on the first line
    assert environment(templates, compiles=False).get_template("page.j2").render(who="again") == "Hello again!"


def test_a_changed_template_is_compiled_again(templates):
    environment(templates).get_template("page.j2")
    (templates / "themes" / "page.j2").write_text("Bye {{ who }}.")
    assert environment(templates).get_template("page.j2").render(who="you") == "Bye you."


def test_compiled_code_this_user_did_not_sign_is_never_loaded(templates, tmp_path, monkeypatch):
    environment(templates).get_template("page.j2")
    (kept,) = templates_folder(templates / "build").iterdir()
    signature = kept.read_bytes().partition(b"\n")[0]
    # other code, under the kept signature and with the template's checksum (Jinja's own check would pass)
    made = environment(templates)
    bucket = Bucket(made, kept.stem, made.bytecode_cache.get_source_checksum("Hello {{ who }}!"))
    bucket.code = made.compile("{{ 6 * 7 }} tampered", "page.j2")
    kept.write_bytes(signature + b"\n" + bucket.bytecode_to_string())
    assert environment(templates).get_template("page.j2").render(who="you") == "Hello you!"
    # signed with another user's secret: compiled again as well
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "someone-else"))
    environment(templates).get_template("page.j2")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    with pytest.raises(AssertionError, match="compiled, not loaded"):
        environment(templates, compiles=False).get_template("page.j2")


def test_a_build_folder_that_cannot_be_written_costs_only_the_compile(templates):
    (templates / "build").write_text("a file where the build folder would be")
    assert environment(templates).get_template("page.j2").render(who="you") == "Hello you!"


CODE = ["import jax.numpy as jnp\nx = jnp.ones(3)  # a comment\nx.sum()", "%timeit sum(range(10))", "!echo hi", ""]


def notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title")]
                                  + [nbformat.v4.new_code_cell(code) for code in CODE])
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    for number, cell in enumerate(nb.cells):
        cell.id = f"cell-{number}"  # the same page from each notebook
    return nb


def page(root=None) -> str:
    """The deck's page from a new exporter (as in a new process), keeping its work under ``root``."""
    made = export.exporter.__wrapped__()
    if root is not None:
        keep(made, root)
    body, _ = made.from_notebook_node(notebook(), resources=export.deck_resources(DeckOptions(), "Talk"))
    return body


def test_code_highlighted_once_is_taken_from_the_file_and_the_page_is_the_same(templates, monkeypatch):
    root = templates / "build"
    stock = page()
    assert page(root) == stock and highlights_file(root).is_file()
    monkeypatch.setattr(Highlight, "highlight", lambda *a, **k: pytest.fail("highlighted again"))
    assert page(root) == stock


def test_highlighted_code_this_user_did_not_sign_is_never_shown(templates, monkeypatch):
    root = templates / "build"
    stock = page(root)
    record = json.loads(highlights_file(root).read_text())
    record["highlighted"] = {key: html + "<script>alert(1)</script>" for key, html in record["highlighted"].items()}
    highlights_file(root).write_text(json.dumps(record))
    assert page(root) == stock  # highlighted again, and kept again under a signature that holds
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(templates / "someone-else"))
    calls = []
    monkeypatch.setattr(Highlight, "highlight", lambda self, *a, **k: calls.append(a) or "")
    page(root)
    assert calls  # another user's secret: nothing of the file is used


def test_a_cell_is_kept_by_its_language_options_and_source(templates):
    kept = KeptHighlights(templates / "highlight.json")
    made = []

    def make(text):
        return lambda: made.append(text) or text

    assert kept.highlighted("ipython3", {}, "x = 1", make("a")) == "a"
    assert kept.highlighted("ipython3", {}, "x = 1", make("b")) == "a"
    assert kept.highlighted("python", {}, "x = 1", make("c")) == "c"
    assert kept.highlighted("ipython3", {"linenos": True}, "x = 1", make("d")) == "d"
    assert kept.highlighted("ipython3", {}, "x = 2", make("e")) == "e"
    kept.save()
    again = KeptHighlights(templates / "highlight.json")
    assert again.highlighted("python", {}, "x = 1", make("f")) == "c" and made == ["a", "c", "d", "e"]
