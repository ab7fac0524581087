"""Remote images: fetched once into build/images/ (a local server here, never the network)."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from jaxdeck.errors import DeckError
from jaxdeck.read import deck_to_notebook
from jaxdeck.read.images import FetchError, cached, fetch, key
from jaxdeck.read.source import read_notebook, round_trip_difference

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
SVG = b"<svg xmlns='http://www.w3.org/2000/svg' width='90' height='20'/>"
UNREACHABLE = "http://images.invalid/logo.png"  # .invalid never resolves: as offline as a venue gets


class Images(BaseHTTPRequestHandler):
    served: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        Images.served.append(self.path)
        found = {"/chart.png": ("image/png", PNG), "/badge/jax-cpu-blue": ("image/svg+xml;charset=utf-8", SVG),
                 "/page": ("text/html", b"<html>not an image</html>"),
                 "/secrets.json": ("application/json", b'{"token": "s3cret"}')}.get(self.path)
        if self.path.startswith("/to/"):  # a redirect to the URL after /to/
            self.send_response(302)
            self.send_header("Location", self.path[len("/to/"):])
            self.end_headers()
            return
        if found is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", found[0])
        self.send_header("Content-Length", str(len(found[1])))
        self.end_headers()
        self.wfile.write(found[1])

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    """http://127.0.0.1:PORT serving two images, stopped after the test. The build fetches from public
    servers only: here 127.0.0.1 stands for one (and only it: 127.0.0.2 stays a loopback address)."""
    from jaxdeck.read import images

    monkeypatch.setattr(images, "allowed", lambda address: address == "127.0.0.1")
    Images.served = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Images)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_fetch_caches_under_the_build_folder(server, tmp_path):
    url = f"{server}/chart.png"
    local = fetch(url, tmp_path / "build")
    assert local == tmp_path / "build" / "images" / f"{hashlib.sha256(url.encode()).hexdigest()}.png"
    assert local.read_bytes() == PNG
    assert [p.name for p in local.parent.iterdir()] == [local.name]  # written atomically: no temporary left
    assert fetch(url, tmp_path / "build") == local and Images.served == ["/chart.png"]  # fetched once


def test_the_cached_copy_needs_no_network(server, tmp_path):
    url = f"{server}/chart.png"
    local = fetch(url, tmp_path)
    port_closed = url.replace(server, "http://127.0.0.1:9")
    (tmp_path / "images" / f"{key(port_closed)}.png").write_bytes(PNG)
    assert fetch(port_closed, tmp_path).read_bytes() == PNG and cached(url, tmp_path) == local


def test_an_url_without_extension_takes_it_from_the_content_type(server, tmp_path):
    local = fetch(f"{server}/badge/jax-cpu-blue", tmp_path)
    assert local.suffix == ".svg" and local.read_bytes() == SVG


@pytest.mark.parametrize("path, reason", [("/missing.png", "HTTP 404"), ("/page", "web page"),
                                          ("/secrets.json", "sent application/json, not an image")])
def test_what_is_not_an_image_is_refused(server, tmp_path, path, reason):
    with pytest.raises(FetchError) as caught:
        fetch(server + path, tmp_path)
    assert reason in str(caught.value) and not (tmp_path / "images").exists()


def test_offline_a_remote_image_shows_as_its_alt_text_with_a_warning_that_says_how_to_vendor_it(write_deck, tmp_path):
    from jaxdeck.html.markdown import render

    deck = write_deck(f"# Talk\n\nSome text.\n\n![the logo]({UNREACHABLE})\n\n[![Open in Colab]({UNREACHABLE}x)](https://x.org)\n")
    nb, _, learnt = read_notebook(deck, build=tmp_path / "build")
    assert learnt.images == {UNREACHABLE: "", UNREACHABLE + "x": ""}
    plain, badge = learnt.warnings
    assert plain.startswith(f"slides/talk.md:5: image '{UNREACHABLE}' cannot be fetched (") or ":5: image" in plain
    assert "shows as its alt text" in plain and "download it next to the deck" in plain and "--strict" in plain
    assert ":7: image" in badge and "a badge, it shows as its link's text" in badge
    assert "\n" not in plain + badge
    shown = render(nb.cells[0].source, offline=[UNREACHABLE, UNREACHABLE + "x"])
    assert '<span class="jd-offline-image"' in shown and ">the logo</span>" in shown and "<img" not in shown
    assert '<a href="https://x.org"><span class="jd-offline-image"' in shown and ">Open in Colab</span></a>" in shown


@pytest.mark.parametrize("how", ["argument", "header"])
def test_strict_makes_an_offline_image_an_error_that_says_how_to_vendor_it(write_deck, tmp_path, how):
    header = "---\njupyter:\n  jaxdeck:\n    strict: true\n---\n\n" if how == "header" else ""
    deck = write_deck(f"{header}# Talk\n\nSome text.\n\n![logo]({UNREACHABLE})\n")
    with pytest.raises(DeckError) as caught:
        read_notebook(deck, build=tmp_path / "build", strict=how == "argument")
    if how == "header":
        assert caught.value.line == 11
        return
    err = caught.value
    assert err.line == 5 and UNREACHABLE in err.message and "network" in err.message
    assert "download it next to the deck" in err.hint and str(deck.parent / "images" / "logo.png") in err.hint
    assert f"talk.md:5: image '{UNREACHABLE}'" in str(err) and "\n" not in str(err)
    assert round_trip_difference(deck) is None  # the round-trip check itself never fetches


def test_the_notebook_maps_each_remote_image_to_its_cached_file(server, write_deck, tmp_path):
    chart, badge = f"{server}/chart.png", f"{server}/badge/jax-cpu-blue"
    text = (f"# Talk\n\n![status]({badge})\n\n---\n\n## Chart\n\n![a chart]({chart})\n\nNote: twice\n\n"
            f"---\n\n## Again\n\n![the same chart]({chart})\n")
    deck = write_deck(text)
    nb = deck_to_notebook(deck, build=tmp_path / "build")
    shown = {c.metadata["jaxdeck"]["line"]: c.metadata["jaxdeck"].get("images") for c in nb.cells}
    local_badge, local_chart = fetch(badge, tmp_path / "build"), fetch(chart, tmp_path / "build")
    assert shown == {1: {badge: str(local_badge)}, 5: {chart: str(local_chart)}, 11: None, 13: {chart: str(local_chart)}}
    assert nb.metadata["jaxdeck_build"]["images"] == {badge: str(local_badge), chart: str(local_chart)}
    assert Images.served.count("/chart.png") == 1
    assert deck.read_text() == text and round_trip_difference(deck) is None


def test_a_protocol_relative_image_is_fetched_over_https(tmp_path):
    from jaxdeck.read.images import absolute, file_name

    assert absolute("//example.org/a/logo.svg") == "https://example.org/a/logo.svg"
    assert file_name("//example.org/a/logo.svg?x=1") == "logo.svg" and file_name("https://example.org/") == "image"


def test_local_images_are_not_touched(write_deck, tmp_path):
    deck = write_deck("# T\n\n![dot](images/dot.svg)\n")
    (Path(deck.parent) / "images").mkdir()
    (Path(deck.parent) / "images" / "dot.svg").write_bytes(SVG)
    nb = deck_to_notebook(deck, build=tmp_path / "build")
    assert "images" not in nb.cells[0].metadata["jaxdeck"] and not (tmp_path / "build").exists()


@pytest.mark.parametrize("url, said", [
    ("http://127.0.0.1:9/logo.png", "127.0.0.1 is a loopback address (127.0.0.1)"),
    ("http://localhost:9/internal/admin?x=1", "is a loopback address"),
    ("http://10.1.2.3/x.png", "10.1.2.3 is a private address"),
    ("http://169.254.169.254/latest/meta-data", "is a link-local address"),
    ("http://[::1]:9/x.png", "is a loopback address (::1)"),
    ("file:///etc/passwd", "only http and https images are fetched, not file: URLs"),
    ("ftp://example.org/x.png", "not ftp: URLs"),
])
def test_only_public_servers_are_fetched_from(tmp_path, url, said):
    """A deck's image URL must not make the build reach this machine's or its network's services."""
    with pytest.raises(FetchError) as caught:
        fetch(url, tmp_path)
    assert said in str(caught.value) and not (tmp_path / "images").exists()


def test_a_redirect_to_a_private_address_is_checked_again_and_refused(server, tmp_path):
    with pytest.raises(FetchError) as caught:
        fetch(f"{server}/to/http://127.0.0.2:{server.rsplit(':', 1)[1]}/chart.png", tmp_path)
    assert "127.0.0.2 is a loopback address" in str(caught.value) and not (tmp_path / "images").exists()
    assert Images.served == ["/to/http://127.0.0.2:" + server.rsplit(":", 1)[1] + "/chart.png"]  # never followed
    assert fetch(f"{server}/to/{server}/chart.png", tmp_path).read_bytes() == PNG  # to an allowed one: followed


def test_a_deck_naming_a_loopback_image_is_one_line_that_fetches_nothing(write_deck, tmp_path):
    deck = write_deck("# T\n\n![admin](http://localhost:18081/internal/admin?x=1)\n")
    with pytest.raises(DeckError) as caught:
        read_notebook(deck, build=tmp_path / "build")
    assert caught.value.line == 3 and "is a loopback address" in caught.value.message
    assert not (tmp_path / "build").exists()


@pytest.mark.parametrize("src, said", [("file:///etc/hostname", "is not a file beside the deck or a web URL"),
                                       ("/etc/hostname", "is an absolute path"),
                                       ("../outside.svg", "is outside the deck's folder")])
def test_a_local_image_must_be_a_file_in_the_decks_folder(write_deck, src, said):
    deck = write_deck(f"# T\n\n![x]({src})\n")
    (deck.parent.parent / "outside.svg").write_bytes(SVG)
    with pytest.raises(DeckError) as caught:
        read_notebook(deck)
    assert caught.value.line == 3 and said in caught.value.message and "\n" not in str(caught.value)
