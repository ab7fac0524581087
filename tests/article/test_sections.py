"""The article's sections (jaxdeck.article.sections): a slide's title, its notes after its content,
columns kept, the contents' place; rendered by the article's template from an unexecuted deck."""

from __future__ import annotations

import copy

from jaxdeck.article.export import to_article
from jaxdeck.article.sections import ArticleSections, heading
from jaxdeck.html.layout import PREPROCESSORS
from jaxdeck.read import deck_to_notebook

DECK = """# A talk

Opening words.

Note: Welcome, everyone.

---

## `jit` is a *cache*

Note: Said before the columns.

|||

Left side.

|||

Right side.

---

A slide without a heading.

Note: Just prose.

--

### Details

```python tags=["check"]
assert 1 + 1 == 2, "arithmetic"
```

```python tags=["remove-cell"]
hidden_setup = 1
```
"""


def sections_of(nb):
    nb, resources = copy.deepcopy(nb), {}
    for kind in (*PREPROCESSORS, ArticleSections):
        nb, resources = kind(enabled=True)(nb, resources)
    return nb, resources["jaxdeck"]["sections"]


def test_a_heading_is_its_text_its_inline_markup_and_its_level():
    assert heading("## `jit` is a *cache*\n\ntext") == ("jit is a cache", "<code>jit</code> is a <em>cache</em>", 2)
    assert heading("no heading here") is None


def test_each_slide_is_a_section_with_its_title_and_its_notes_after_its_content(write_deck):
    nb, sections = sections_of(deck_to_notebook(write_deck(DECK)))
    assert [(s["slide"], s["title"], s["level"], s["vertical"]) for s in sections] == [
        (1, "A talk", 1, False), (2, "jit is a cache", 2, False), (3, None, 2, False), (4, "Details", 3, True)]
    slide_two = [c for c in nb.cells if c.metadata.jd["slide"] == 2]
    roles = [c.metadata.jd["role"] for c in slide_two]
    assert roles[-1] == "notes" and "notes" not in roles[:-1], "the notes go beneath the slide's content"
    assert slide_two[-1].metadata.jd["article"] == {"notes": True, "close": True}
    assert slide_two[0].metadata.jd["article"]["open"]["anchor"] == "slide-2"
    assert slide_two[0].metadata.jd["article"]["toc"] is True, "the contents come before the first slide after the title"
    opened = [kind for c in slide_two for kind in c.metadata.jd["opens"]]
    closed = [kind for c in slide_two for kind in c.metadata.jd["closes"]]
    assert opened.count("column") == 2 and closed.count("column") == 2 and closed.count("columns") == 1
    assert slide_two[-1].metadata.jd["closes"] == [], "the columns close before the notes"


def test_the_template_writes_sections_contents_and_prose(write_deck):
    page = to_article(deck_to_notebook(write_deck(DECK)), "A talk")
    assert page.count('<section class="jd-section') == 4
    assert '<a href="#slide-2"><code>jit</code> is a <em>cache</em></a>' in page
    assert '<a href="#slide-3">' not in page, "a slide without a heading has no line in the contents"
    assert page.index("Said before the columns.") > page.index("Right side."), "notes beneath the content"
    assert page.index('class="jd-notes"') > page.index('id="slide-1"')
    assert "arithmetic" not in page and "hidden_setup" not in page, "claim checks and removed cells are not shown"
    assert "<aside" not in page and "reveal" not in page.split("<body", 1)[1], "no reveal.js markup on the page"
