"""A build signs the notebook it writes; an edited one, or one built with --frozen, is not signed."""

from __future__ import annotations

import nbformat
import pytest

from jaxdeck import trust
from support import run_cli

DECK = "# Talk\n\n```python\nfrom IPython.display import HTML\nHTML('<b>bold</b>')\n```\n\nNote: a chart.\n"


@pytest.mark.heavy
def test_a_build_signs_its_notebook_and_an_edit_or_a_frozen_build_is_not_trusted(tmp_path):
    data = tmp_path / "jupyter-data"
    env = {"JUPYTER_DATA_DIR": str(data)}
    (tmp_path / "talk.md").write_text(DECK)
    done = run_cli("build", "talk.md", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    store = data / "jaxdeck-trust"
    built = tmp_path / "build" / "notebooks" / "talk.ipynb"
    nb = nbformat.read(built, as_version=4)
    assert trust.signed(nb, store)
    assert not trust.signed(nb, tmp_path / "elsewhere")  # another user's (or machine's) store

    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs[0]["data"]["text/html"] = "<script>alert(1)</script>"
    assert not trust.signed(nb, store)

    foreign = tmp_path / "foreign.ipynb"
    nbformat.write(nb, foreign)  # outputs made elsewhere, built in with --frozen
    (tmp_path / "talk.md").write_text(DECK.replace("a chart", "a chart, frozen"))
    done = run_cli("build", "talk.md", "--frozen", str(foreign), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert not trust.signed(nbformat.read(built, as_version=4), store)


def test_text_moved_from_one_output_field_into_the_next_breaks_the_signature(tmp_path):
    """Jupyter's own digest runs a notebook's strings together with nothing between them: a printed
    `<script>` moved into the HTML beside it (its key's name with it) would keep the signature."""
    store = tmp_path / "store"
    shown = {"text/html": "<b>bold</b>", "text/plain": "<script>window.__moved = 1</script>"}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "display(bundle, raw=True)", outputs=[nbformat.v4.new_output("display_data", data=shown)])])
    assert trust.sign(nb, store) and trust.signed(nbformat.reads(nbformat.writes(nb), as_version=4), store)
    data = nb.cells[0].outputs[0].data
    data["text/html"] = data["text/html"] + "text/plain" + data.pop("text/plain")
    assert not trust.signed(nb, store)


def test_outputs_from_elsewhere_keep_what_they_draw_and_say_and_lose_what_runs():
    """What the static deck shows of an unsigned notebook's outputs (a --frozen one from another
    machine): a table and an inline SVG chart as they were; no script, handler, javascript: link,
    JavaScript output or Markdown output (its text instead, as JupyterLab shows it live)."""
    from jaxdeck.untrusted import sanitised

    chart = ('<table><tr><td style="padding: 2px; color: red">1.5 ms</td></tr></table>'
             '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img">'
             '<rect x="1" y="2" width="3" height="4" style="fill: #123456"></rect><text x="1" y="9">ms</text></svg>')
    attack = ('<script>window.__ran = 1</script><img src="data:," onerror="window.__ran = 2">'
              '<a href="javascript:window.__ran = 3">link</a><iframe src="https://example.org"></iframe>')
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell('<span onclick="author()">the deck\'s own</span>'),
        nbformat.v4.new_code_cell("show()", outputs=[
            nbformat.v4.new_output("display_data", data={"text/html": chart + attack, "text/plain": "chart"}),
            nbformat.v4.new_output("display_data", data={"application/javascript": "window.__ran = 4",
                                                         "text/markdown": "<b onmouseover=x>md</b>",
                                                         "text/plain": "js"})])])
    shown = sanitised(nb)
    html = shown.cells[1].outputs[0]["data"]["text/html"]
    for kept in ('<td style="padding: 2px; color: red;">1.5 ms</td>', 'viewBox="0 0 10 10" role="img"',
                 '<rect x="1" y="2" width="3" height="4" style="fill: #123456;"></rect>', '<text x="1" y="9">ms</text>',
                 '<a>link</a>'):
        assert kept in html, kept
    for gone in ("script", "__ran", "onerror", "javascript:", "iframe"):
        assert gone not in html, gone
    assert dict(shown.cells[1].outputs[1]["data"]) == {"text/plain": "js"}
    assert shown.cells[0].source == nb.cells[0].source  # the deck's Markdown is its author's
    assert nb.cells[1].outputs[0]["data"]["text/html"] == chart + attack  # a copy: the notebook given is kept


def test_an_output_s_metadata_from_elsewhere_keeps_only_a_picture_s_size_and_background():
    """The lab template writes a picture's width bare into its <img>: an unsigned notebook's output
    metadata keeps only known keys with values of their own type, top level or under a kept output type."""
    from jaxdeck.untrusted import sanitised

    metadata = {"width": "1 onerror=alert(1)", "height": 200, "needs_background": "dark", "isolated": True,
                "filenames": {"image/png": "file:///etc/hostname"}, "unconfined": "yes", "other": 1,
                "image/png": {"width": 320, "height": "2 onload=x", "needs_background": "<b>", "isolated": "no",
                              "filenames": "x"},
                "image/jpeg": {"width": 10}, "text/html": {"isolated": True}, "application/javascript": {"width": 5}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("show()", outputs=[
        nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/html": "<b>x</b>",
                                                     "application/javascript": "x()"}, metadata=metadata),
        nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, metadata={"width": [1]},
                               execution_count=1)])])
    nb.cells[0].outputs[1]["svg_filename"] = "file:///etc/hostname"  # no key of nbformat's: lab draws it as a src
    shown = sanitised(nb).cells[0].outputs
    assert shown[0]["metadata"] == {"height": 200, "needs_background": "dark", "isolated": True,
                                    "image/png": {"width": 320}, "text/html": {"isolated": True}}
    assert shown[1]["metadata"] == {} and set(shown[1]) == {"output_type", "data", "metadata", "execution_count"}
    assert nb.cells[0].outputs[0]["metadata"] == metadata  # a copy: the notebook given is kept


def test_an_output_from_elsewhere_loads_nothing_from_another_place():
    """An unsigned output's picture or style that names a URL would be fetched by the build's Chromium and
    by every browser that opens the deck: only data: pictures stay, and a style with a url() loses it;
    a link, clicked by the audience and loaded by no one else, keeps its http(s) address."""
    from jaxdeck.untrusted import sanitised

    html = ('<p>chart</p><img src="http://127.0.0.1:9/img?who=builder" alt="remote">'
            '<img src="//127.0.0.1:9/scheme-relative"><img src="chart.png"><img src="file:///etc/hostname">'
            '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">'
            '<div style="background-image: url(http://127.0.0.1:9/css)">a</div>'
            '<div style="background: red url(\'http://127.0.0.1:9/css2\'); color: blue">b</div>'
            '<div style="background: image-set(\'http://127.0.0.1:9/css3\' 1x)">c</div>'
            '<a href="https://example.org/docs">docs</a>')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("show()", outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "chart"})])])
    shown = sanitised(nb).cells[0].outputs[0]["data"]["text/html"]
    for gone in ("127.0.0.1", "chart.png", "file:", "url(", "image-set"):
        assert gone not in shown, (gone, shown)
    for kept in ('<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">', '<img alt="remote">',
                 'color: blue;', '<a href="https://example.org/docs">docs</a>'):
        assert kept in shown, (kept, shown)
