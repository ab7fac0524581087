"""Who may use a preview: whoever has the token it printed, and no other user of the box.

127.0.0.1 is every local user's: on a shared GPU box, a preview without a token would let
any of them read the deck being written and make the preview run its code again. The token
(random, 256 bits) is in the URL the preview prints and opens; it is never on a command line
or in a file others can read. The first request carries it as ``?token=``; the answer sets
it as a cookie of this port's own name (HttpOnly, SameSite=Strict, Path=/), which the page's
pictures, scripts, event stream and POSTs then carry without it in their URLs.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, urlsplit

#: the query parameter that carries the token
PARAMETER = "token"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def same(given: str, token: str) -> bool:
    """``given`` is ``token``, compared in constant time (a non-ASCII guess is simply wrong)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("utf-8"))


@dataclass(frozen=True)
class Access:
    """The token of the preview on ``port``, and how a request shows it."""

    port: int
    token: str = field(default_factory=new_token, repr=False)

    @property
    def cookie_name(self) -> str:
        """Cookies are shared by every port of a host: each preview's has its port in its name."""
        return f"jaxdeck-preview-{self.port}"

    def in_query(self, target: str) -> bool:
        """The request target (``/path?query``) carries the token as ``?token=``."""
        given = parse_qs(urlsplit(target).query).get(PARAMETER, [])
        return any(same(value, self.token) for value in given)

    def in_cookie(self, header: str | None) -> bool:
        """The ``Cookie`` header carries this preview's cookie with the token."""
        cookies = SimpleCookie()
        try:
            cookies.load(header or "")
        except CookieError:
            return False
        morsel = cookies.get(self.cookie_name)
        return morsel is not None and same(morsel.value, self.token)

    def set_cookie(self) -> str:
        """The ``Set-Cookie`` value that lets the page's own requests in: for this browser session only."""
        cookie = SimpleCookie()
        cookie[self.cookie_name] = self.token
        morsel = cookie[self.cookie_name]
        morsel["path"] = "/"
        morsel["httponly"] = True
        morsel["samesite"] = "Strict"
        return morsel.OutputString()
