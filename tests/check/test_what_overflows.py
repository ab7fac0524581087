"""What overflows a slide, measured and named: a scrollable slide is not overflow, a code cell's long
line wraps under a continuation mark (in the HTML deck and its PDF alike), and an output or code too
long for the slide is named with the advice that suits it.

The deck is tests/fixtures/overflow_kinds.md; tests/rehearse/test_what_overflows_live.py rehearses the
same deck and asserts the same pixels live.
"""

from __future__ import annotations

import re
import subprocess

import nbformat
import pytest

from support import ROOT
from jaxdeck.build import build_deck
from jaxdeck.check.deck import check_deck
from jaxdeck.pdf.export import export_pdfs

DECK = ROOT / "tests" / "fixtures" / "overflow_kinds.md"
#: the 207-character line of slide 3, as the deck has it
LONG = next(line for line in DECK.read_text().splitlines() if line.startswith("def configure("))

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def deck(tmp_path_factory, browser):
    outputs = build_deck(DECK, tmp_path_factory.mktemp("overflow-kinds"))
    nb = nbformat.read(outputs.notebook, as_version=4)
    export_pdfs(nb, outputs.html, outputs, browser=browser)
    return outputs, nb


@pytest.mark.heavy
def test_only_the_output_and_the_code_too_long_for_their_slides_overflow_each_named(deck, browser):
    outputs, nb = deck
    problems = check_deck(DECK, nb, outputs.html, browser=browser)
    # the long code is also over the line limit a room can read, and said so apart
    assert [(p.slide, p.kind) for p in problems] == [(4, "overflow"), (5, "overflow"), (5, "code-length")], problems
    output, code, length = problems
    assert length.message.startswith("a code cell of 24 lines") and DECK.read_text().splitlines()[length.line - 1] == "```python"
    # the scrollable slide (2) runs far below its frame and is not reported; the long line (3) wraps
    assert output.message.startswith("the output overflows the 1280x720 slide frame by ")
    assert "print less" in output.message and "split the cell" not in output.message
    assert code.message.startswith("the code overflows the 1280x720 slide frame by ")
    assert "split the cell" in code.message and "print less" not in code.message
    for problem in (output, code):
        assert int(re.search(r" by (\d+) px below it;", problem.message).group(1)) > 50


LINE = """() => {
  const slide = Reveal.getCurrentSlide(), pre = slide.querySelector('.jp-InputArea-editor pre');
  const line = [...pre.querySelectorAll('.jd-line')].find(l => l.textContent.startsWith('def configure('));
  const rows = new Map(), range = document.createRange();
  const text = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let node = text.nextNode(); node; node = text.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getClientRects()[0];
      if (!r) continue;
      const top = Math.round(r.top);
      rows.set(top, (rows.get(top) || '') + node.data[i]);
    }
  }
  const mark = getComputedStyle(line, '::after');
  const box = line.getBoundingClientRect(), frame = Reveal.getSlidesElement().getBoundingClientRect();
  return {rows: [...rows.entries()].sort((a, b) => a[0] - b[0]).map(e => e[1]), right: box.right,
          frameRight: frame.right, preRight: pre.getBoundingClientRect().right, wider: pre.scrollWidth - pre.clientWidth,
          mark: {content: mark.content, height: parseFloat(mark.height), mask: mark.maskImage || mark.webkitMaskImage},
          rowHeight: parseFloat(getComputedStyle(line).lineHeight)};
}"""


@pytest.mark.heavy
def test_a_long_code_line_wraps_at_its_spaces_under_a_continuation_mark_in_the_html_deck(deck, browser):
    from jaxdeck.pages import open_deck

    outputs, _ = deck
    with open_deck(browser, outputs.html, width=1280, height=720) as (page, _requests):
        page.evaluate("() => Reveal.slide(2, 0)")
        found = page.evaluate(LINE)
    rows = found["rows"]
    assert len(rows) >= 3, rows  # wrapped, not cut off or shrunk onto one row
    assert "".join(rows) == LONG
    for row in rows[:-1]:
        assert row.endswith(" "), rows  # each row ends at a space: no name, number or keyword cut in two
    assert found["right"] <= found["preRight"] + 0.5 <= found["frameRight"] + 0.5 and found["wider"] <= 0, found
    # the mark: drawn down the hanging indent of every row but the first
    assert found["mark"]["content"] == '""' and "svg" in found["mark"]["mask"], found["mark"]
    assert found["mark"]["height"] == pytest.approx((len(rows) - 1) * found["rowHeight"], abs=1), found


def test_the_pdf_wraps_the_long_code_line_where_the_html_deck_does(deck):
    outputs, _ = deck
    text = subprocess.run(["pdftotext", "-layout", "-f", "3", "-l", "3", str(outputs.pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("def configure("))
    end = next(i for i, line in enumerate(lines) if line.strip().startswith("settings = configure()"))
    rows = lines[start:end]
    assert len(rows) >= 3, text
    # rows joined at a space give the line back: every break is at a space, none inside a name
    assert " ".join(row.strip() for row in rows) == LONG, rows
    indent = [len(row) - len(row.lstrip()) for row in rows]
    assert all(step > indent[0] for step in indent[1:]), rows  # the continuation rows hang further in


@pytest.mark.heavy
def test_the_auto_fit_leaves_a_scrollable_section_whole_and_check_passes_it(write_deck, tmp_path, browser):
    """A file without slide markers is cut where a slide runs over; a {.scrollable} section runs over on purpose."""
    items = "\n\n".join(f"Paragraph {n}." for n in range(1, 21))  # blocks the fit may cut between
    deck = write_deck(f"# A tutorial\n\nSome words.\n\n## Reference {{.scrollable}}\n\n{items}\n\n"
                      f"## Long\n\n{items}\n\n## After\n\nThe end.\n")
    outputs = build_deck(deck, tmp_path / "build")
    html = outputs.html.read_text()
    assert html.count("Reference (continued)") == 0 and html.count("Long (continued)") >= 1  # only the other is cut
    nb = nbformat.read(outputs.notebook, as_version=4)
    assert [p for p in check_deck(deck, nb, outputs.html, browser=browser) if p.kind == "overflow"] == []
