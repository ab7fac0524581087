"""No script in a deck reads a local file into its PDFs: Chromium prints each page from a private origin
that serves the page's folder only (jaxdeck.pages.open_served), and has no file access of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support import run_cli

#: the deck's own script (a raw HTML block, as an output's would run): it tries an XHR, fetch and a frame
#: on a file outside the build folder, and writes what each got into the slide
READER = """# Reading a file

<pre id="got">tried:</pre>
<iframe id="frame" width="600" height="80"></iframe>
<script>
(function () {{
  const secret = {url!r};
  const got = document.getElementById('got');
  const say = (how, text) => {{ got.textContent += ' ' + how + '=' + String(text).trim(); }};
  try {{
    const request = new XMLHttpRequest();
    request.open('GET', secret, false);
    request.send();
    say('xhr', request.responseText || 'empty');
  }} catch (err) {{ say('xhr', 'refused'); }}
  fetch(secret).then(r => r.text()).then(t => say('fetch', t), () => say('fetch', 'refused'));
  const frame = document.getElementById('frame');
  frame.onload = () => {{ try {{ say('frame', frame.contentDocument.body.textContent); }}
                          catch (err) {{ say('frame', 'refused'); }} }};
  frame.src = secret;
}})();
</script>

---

## Two

Text.
"""


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-raw", str(path), "-"], capture_output=True, text=True, check=True).stdout


@pytest.mark.heavy
def test_a_deck_s_script_prints_no_local_file_into_its_pdfs(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("local-secret-7f3a9c\n")
    talk = tmp_path / "talk"
    talk.mkdir()
    (talk / "talk.md").write_text(READER.format(url=secret.as_uri()))
    done = run_cli("build", "talk.md", "--pdf", cwd=talk)
    assert done.returncode == 0, done.stdout + done.stderr
    for pdf in ("talk.pdf", "talk-handout.pdf"):
        text = pdf_text(talk / "build" / "pdf" / pdf)
        assert "tried: xhr=refused" in text, text  # the script ran, and read nothing
        assert "local-secret" not in text, text
