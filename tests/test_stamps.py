"""Up-to-date records: what each artefact is made from, digested from real files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jaxdeck import stamps
from jaxdeck.html.assets import NODE_MODULES, THEMES


def test_record_lies_beside_its_artefact_and_names_its_bytes(tmp_path):
    artefact = tmp_path / "html" / "talk.html"
    artefact.parent.mkdir()
    artefact.write_text("<html>one</html>")
    saved = stamps.save(artefact, {"notebook": "abc"})
    path = tmp_path / "html" / ".talk.html.inputs.json"
    assert stamps.record_path(artefact) == path and path.is_file()
    assert json.loads(path.read_text()) == saved
    assert saved["sha256"] == stamps.file_sha(artefact)
    assert stamps.load(artefact) == saved

    artefact.write_text("<html>edited by hand</html>")
    assert stamps.load(artefact) is None, "an artefact that is not what was recorded is out of date"
    artefact.write_text("<html>one</html>")
    assert stamps.load(artefact) == saved
    path.write_text('{"schema": 1, "inputs": {')
    assert stamps.load(artefact) is None, "a torn record is a rebuild, not an error"
    path.write_text(json.dumps(dict(saved, schema=0)))
    assert stamps.load(artefact) is None
    path.unlink()
    assert stamps.load(artefact) is None


def test_look_is_the_theme_and_front_end_and_print_styles_are_apart(tmp_path):
    themes = tmp_path / "themes"
    shutil.copytree(THEMES, themes)

    def digests():
        sources = stamps.Sources(tmp_path / "build", themes=themes, node_modules=NODE_MODULES)
        return sources.look, sources.print_styles["pdf"], sources.print_styles["handout"]

    def edit(name):
        with open(themes / "jaxdeck" / name, "a") as handle:
            handle.write("\n/* edited */\n")

    look, slides, handout = digests()
    edit("static/projector.css")
    after = digests()
    assert after[0] != look and after[1:] == (slides, handout), "the deck theme is the look of HTML and PDFs"
    look = after[0]
    edit("index.html.j2")
    assert digests()[0] != look
    look = digests()[0]
    edit("static/print.css")
    after = digests()
    assert after[0] == look and after[1] != slides and after[2] != handout, "print styles shape both PDFs, not the HTML"
    slides, handout = after[1:]
    edit("static/handout.css")
    after = digests()
    assert after[:2] == (look, slides) and after[2] != handout, "handout styles shape the handout only"
    handout = after[2]
    edit("static/live.css")
    assert digests() == (look, slides, handout), "the live slideshow's styles shape no artefact"


def test_the_series_sites_files_are_no_part_of_the_look(tmp_path):
    themes = tmp_path / "themes"
    shutil.copytree(THEMES, themes, ignore=shutil.ignore_patterns("site"))
    look = stamps.Sources(tmp_path / "build", themes=themes, node_modules=NODE_MODULES).look
    (themes / "jaxdeck" / "site").mkdir()
    (themes / "jaxdeck" / "site" / "site.css").write_text("body { color: black; }\n")
    assert stamps.Sources(tmp_path / "build", themes=themes, node_modules=NODE_MODULES).look == look, \
        "a change to the site's look rebuilds no deck"


def test_front_end_versions_are_part_of_the_look(tmp_path):
    from jaxdeck.html.assets import NPM_FILES

    modules = tmp_path / "node_modules"
    for name in NPM_FILES:  # every front-end package a deck copies beside its page
        (modules / name).mkdir(parents=True)
        shutil.copy(NODE_MODULES / name / "package.json", modules / name / "package.json")
    sources = stamps.Sources(tmp_path, node_modules=modules)
    assert sources.look == stamps.Sources(tmp_path).look
    text = (modules / "katex" / "package.json").read_text()
    (modules / "katex" / "package.json").write_text(text.replace('"version"', '"version_was"', 1))
    assert stamps.Sources(tmp_path, node_modules=modules).look != sources.look


def test_jupytext_configuration_names_are_jupytexts():
    from jupytext.config import JUPYTEXT_CONFIG_FILES

    assert tuple(JUPYTEXT_CONFIG_FILES) == stamps.JUPYTEXT_CONFIG_FILES


def test_nearest_jupytext_configuration_counts(tmp_path):
    deck = tmp_path / "talks" / "slides" / "talk.md"
    deck.parent.mkdir(parents=True)
    deck.write_text("# Talk\n")
    assert stamps.Sources(tmp_path).jupytext(deck) is None
    (tmp_path / "talks" / "jupytext.toml").write_text('notebook_metadata_filter = "-all"\n')
    outer = stamps.Sources(tmp_path).jupytext(deck)
    assert outer is not None
    (tmp_path / "talks" / "jupytext.toml").write_text('notebook_metadata_filter = "jaxdeck,-all"\n')
    assert stamps.Sources(tmp_path).jupytext(deck) not in (None, outer)
    (deck.parent / ".jupytext.toml").write_text('notebook_metadata_filter = "-all"\n')
    nearer = stamps.Sources(tmp_path).jupytext(deck)
    (tmp_path / "talks" / "jupytext.toml").write_text("# no longer read\n")
    assert stamps.Sources(tmp_path).jupytext(deck) == nearer, "the nearest configuration wins, as in jupytext"


@pytest.fixture
def kept(tmp_path):
    """A deck and the notebook a frozen build takes its outputs from (gpu/talk.ipynb), and the build's sources."""
    frozen = tmp_path / "gpu" / "talk.ipynb"
    frozen.parent.mkdir()
    frozen.write_text('{"cells": []}')
    return tmp_path / "talk.md", frozen, stamps.Sources(tmp_path / "build")


def test_frozen_outputs_are_identified_by_the_notebook_they_came_from(kept):
    deck, frozen, sources = kept
    by_file = sources.execution(deck, frozen)
    assert by_file == {"frozen": stamps.file_sha(frozen)}
    assert sources.execution(deck, frozen.parent) == by_file, "a folder of notebooks names NAME.ipynb"
    frozen.write_text('{"cells": [1]}')
    assert sources.execution(deck, frozen) != by_file



def test_a_frozen_build_that_made_outputs_here_is_held_to_this_machine_too(kept, tmp_path):
    deck, frozen, sources = kept
    sources.__dict__.update(environment="env-1", demos="0.5", machine="box-1")  # no probe of the kernel's environment
    kept, mixed = sources.execution(deck, frozen), sources.execution(deck, frozen, own=True)
    assert kept == {"frozen": stamps.file_sha(frozen)}
    assert mixed == {**kept, "environment": "env-1", "demos": "0.5"}, "outputs made here: this machine's too"

    def holds(execution, given, machine="box-1"):
        return sources.execution_holds({"inputs": {"execution": execution}, "machine": machine}, tmp_path / "nb.ipynb",
                                       deck, given)

    assert holds(kept, frozen) and holds(mixed, frozen)
    assert not holds(kept, None) and not holds(mixed, None), "a plain build takes no kept output"
    assert not holds(sources.execution(deck), frozen)
    sources.__dict__["demos"] = "0.6"
    assert holds(kept, frozen) and not holds(mixed, frozen), "only the outputs made here depend on demos"
    sources.__dict__.update(demos="0.5", environment="env-2")
    assert holds(mixed, frozen) and not holds(mixed, frozen, machine="box-0")
    frozen.write_text('{"cells": [1]}')
    assert not holds(kept, frozen) and not holds(mixed, frozen)


def _imported(module: Path, package: Path) -> set[str]:
    """jaxdeck modules (paths relative to the package) that ``module`` imports, anywhere in it."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxdeck"):
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("jaxdeck")]
        for name in names:
            parts = name.split(".")[1:]
            for candidate in (package.joinpath(*parts).with_suffix(".py"), package.joinpath(*parts, "__init__.py")):
                if parts and candidate.is_file():
                    found.add(candidate.relative_to(package).as_posix())
    return found


def stage_modules(entries) -> set[str]:
    """Every jaxdeck module a stage's entry modules import, directly or through each other."""
    package = stamps.PACKAGE
    todo, seen = list(entries), set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(_imported(package / module, package) - seen)
    return seen


@pytest.mark.heavy
@pytest.mark.parametrize("stage", sorted(stamps.CODE))
def test_every_module_a_stage_imports_is_in_its_record_or_named_as_plumbing(stage):
    imported = stage_modules(stamps.ENTRIES[stage])
    missing = imported - set(stamps.CODE[stage]) - set(stamps.PLUMBING)
    assert not missing, f"{stage}: imported but neither in stamps.CODE nor stamps.PLUMBING: {sorted(missing)}"
    stale = set(stamps.CODE[stage]) - imported
    assert not stale, f"{stage}: in stamps.CODE but not imported by the stage: {sorted(stale)}"
