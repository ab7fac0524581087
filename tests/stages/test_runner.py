"""A deck's way through the stages: each stage its plan wants runs once, in order, on the record an
earlier stage gave; the runner alone writes the input records; the build's options are one record."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io

import pytest

from support import ROOT
from jaxdeck import stamps
from jaxdeck.build import build, build_deck
from jaxdeck.decks import Outputs
from jaxdeck.progress import Progress
from jaxdeck.stages.job import Shared
from jaxdeck.stages.options import BuildOptions
from jaxdeck.stages.plan import plan

DECK = """# Talk

Some prose.

Note: what to say first.

---

## Code

```python
6 * 7
```
"""

#: the keywords `build()` took before its options were one record; each is a field of it
KEYWORDS = {"timeout", "cache", "frozen", "pdf", "force", "reprint", "execution", "jobs", "strict", "allow_errors",
            "single", "article", "flags"}


class Said(Progress):
    """The build's progress display (off: its stream is no terminal), keeping what each stage said on it."""

    def __init__(self):
        super().__init__(1, io.StringIO())
        self.said: list[str] = []

    def stage(self, deck: str, stage: str) -> None:
        if not stage.startswith("execute cell"):  # the kernel's cells, said by the execute stage
            self.said.append(stage)
        super().stage(deck, stage)


@pytest.mark.heavy
def test_each_stage_the_plan_wants_runs_once_in_order(tmp_path):
    deck, root = tmp_path / "talk.md", tmp_path / "build"
    deck.write_text(DECK, encoding="utf-8")
    options, shown = BuildOptions(single=True, article=True), Said()
    done = build_deck(deck, root, options, shared=Shared(stamps.Sources(root), progress=shown))
    assert shown.said == ["convert", "execute", "export html", "single file", "article"]
    assert done.done == "executed 1 cell, HTML + single file + article" and done.cache == "miss"
    assert done.seconds.pdf is None and done.seconds.execute > 0
    outputs = Outputs(deck, root)
    made = (outputs.notebook, outputs.html, outputs.single, outputs.article)
    assert all(stamps.load(path) is not None for path in made), "every artefact made has its input record"
    assert plan(deck, outputs, stamps.Sources(root), options).fresh

    # the article alone, from the executed notebook an earlier build wrote: no other stage runs, nothing executes
    outputs.article.write_text("edited by hand", encoding="utf-8")
    again, shown = plan(deck, outputs, stamps.Sources(root), options), Said()
    assert (again.notebook, again.html, again.single, again.article) == (False, False, False, True)
    rebuilt = build_deck(deck, root, options, plan=again, shared=Shared(stamps.Sources(root), progress=shown))
    assert shown.said == ["article"] and rebuilt.done == "article" and rebuilt.cells_executed is None
    assert plan(deck, outputs, stamps.Sources(root), options).fresh


def test_the_input_records_are_written_from_one_place():
    writes = []
    for path in sorted((ROOT / "jaxdeck").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "save" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "stamps"
            imported = isinstance(node, ast.ImportFrom) and node.module == "jaxdeck.stamps" \
                and any(alias.name == "save" for alias in node.names)
            if called or imported:
                writes.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(writes) == 1 and writes[0].startswith("jaxdeck/stages/runner.py:"), writes


def test_the_build_options_travel_as_one_record(tmp_path):
    assert len(inspect.signature(build_deck).parameters) <= 6
    assert KEYWORDS <= {field.name for field in dataclasses.fields(BuildOptions)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        BuildOptions().pdf = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        build([], tmp_path / "build", colour=True)  # a keyword the record has no field for
