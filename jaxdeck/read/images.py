"""Remote images of a deck, fetched once into the build folder so that the deck presents offline.

``fetch(url, build)`` returns ``BUILD/images/<sha256 of the url>.<ext>``: the cached copy
when there is one (no network needed), else the file downloaded now (urllib, a short
timeout, written atomically). A failure is a :class:`FetchError` naming the reason; the
reader turns it into a DeckError at the image's file:line that says how to vendor the file.

What is fetched, and only that: an http or https URL whose host resolves to public addresses
only (no loopback, private, link-local, multicast or reserved one, so a deck cannot make the
build reach the machine's or the network's own services), checked again at every redirect;
an ``image/*`` reply; at most MAX_BYTES.
"""

from __future__ import annotations

import hashlib
import ipaddress
import mimetypes
import socket
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from jaxdeck.atomic import write_bytes

#: seconds to wait for a remote image (connecting and each read)
TIMEOUT_S = 5.0
#: a remote image larger than this is refused (a deck's badge or figure is far smaller)
MAX_BYTES = 20 * 1024 * 1024

_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".ico"}
_TYPES = {"image/svg+xml": ".svg", "image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif",
          "image/webp": ".webp", "image/avif": ".avif"}


class FetchError(Exception):
    """A remote image could not be fetched; ``name`` is a file name to save it under, ``offline``
    says the network was not there (no name resolution, no connection), rather than refused."""

    def __init__(self, url: str, reason: str, offline: bool = False):
        super().__init__(reason)
        self.url = url
        self.name = file_name(url)
        self.offline = offline


def file_name(url: str) -> str:
    """A file name for the image at ``url`` (its last path segment, else ``image``)."""
    name = PurePosixPath(urlsplit(absolute(url)).path).name
    return name or "image"


def absolute(url: str) -> str:
    """``//host/x.png`` (protocol-relative) as ``https://host/x.png``; other URLs as they are."""
    return "https:" + url if url.startswith("//") else url


def key(url: str) -> str:
    """The cache name of ``url``: the SHA-256 of the URL as written in the deck."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()


def cached(url: str, build: str | Path) -> Path | None:
    """The cached copy of ``url`` under ``build/images/``, if any."""
    folder = Path(build) / "images"
    if not folder.is_dir():
        return None
    found = sorted(p for p in folder.glob(key(url) + ".*") if p.is_file() and not p.name.startswith("."))
    return found[0] if found else None


def _suffix(url: str, content_type: str | None) -> str:
    suffix = PurePosixPath(urlsplit(absolute(url)).path).suffix.lower()
    if suffix in _IMAGE_SUFFIXES:
        return ".jpg" if suffix == ".jpeg" else suffix
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind in _TYPES:
        return _TYPES[kind]
    return (mimetypes.guess_extension(kind) or ".img") if kind else ".img"


def public(address: str) -> bool:
    """Whether a resolved address is a public one (a server on the internet)."""
    ip = ipaddress.ip_address(address.split("%")[0])
    return ip.is_global and not ip.is_multicast


#: which resolved addresses images may be fetched from (:func:`public`)
allowed = public


def _kind(address: str) -> str:
    ip = ipaddress.ip_address(address.split("%")[0])
    for name in ("loopback", "link_local", "multicast", "private", "reserved"):
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    return "non-public"


def check_url(url: str) -> None:
    """A FetchError unless ``url`` is http(s) on a host whose every address is :data:`allowed`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchError(url, f"only http and https images are fetched, not {parts.scheme or 'this'}: URLs")
    if not parts.hostname:
        raise FetchError(url, "the URL names no host")
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError) as err:
        raise FetchError(url, f"no network: cannot resolve {parts.hostname} ({err})", offline=True) from None
    for *_, address in found:
        if not allowed(address[0]):
            raise FetchError(url, f"{parts.hostname} is a {_kind(address[0])} address ({address[0]}); "
                                  "images are fetched from public servers only")


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a URL :func:`check_url` accepts."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch(url: str, build: str | Path, timeout: float = TIMEOUT_S) -> Path:
    """The local file of the remote image ``url``: cached under ``build/images/``, fetched if need be."""
    found = cached(url, build)
    if found is not None:
        return found
    check_url(absolute(url))
    request = urllib.request.Request(absolute(url), headers={"User-Agent": "jaxdeck (image cache)"})
    opener = urllib.request.build_opener(_CheckedRedirects)
    try:
        with opener.open(request, timeout=timeout) as response:
            data = response.read(MAX_BYTES + 1)
            content_type = response.headers.get("Content-Type")
    except urllib.error.HTTPError as err:
        raise FetchError(url, f"HTTP {err.code}") from None
    except urllib.error.URLError as err:
        raise FetchError(url, f"no network: {err.reason}", offline=True) from None
    except (OSError, ValueError) as err:  # timeouts, resets, malformed URLs
        raise FetchError(url, f"no network: {err}", offline=True) from None
    if len(data) > MAX_BYTES:
        raise FetchError(url, f"larger than {MAX_BYTES // (1024 * 1024)} MB")
    if not data:
        raise FetchError(url, "the server sent an empty file")
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == "text/html":
        raise FetchError(url, "the server sent a web page, not an image")
    if not kind.startswith("image/"):
        raise FetchError(url, f"the server sent {kind or 'no content type'}, not an image")
    return write_bytes(Path(build) / "images" / (key(url) + _suffix(url, content_type)), data)
