"""A live server's kernel, reached as the slideshow reaches it, with no browser.

REST for what the page asks the server (the deck's slideshow notebook from the contents
manager, a session for the deck, an interrupt) and the kernel's websocket channel
(``/api/kernels/ID/channels``) for code, with websocket-client, which Jupyter's server brings.
The token goes in an ``Authorization`` header only: never in a URL that a log could keep, never
on a command line. Messages use the channel's JSON protocol (Jupyter's default); one with
binary buffers (a widget's) comes as a binary frame, whose JSON part is read and the buffers
left. Every wait is made of waits of :data:`jaxdeck.stopping.WAKE_S`, so a stop signal is taken
at once, and so a cell past its time limit is interrupted on time.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote

from jaxdeck.errors import DeckError
from jaxdeck.rehearse.runs import seconds_between
from jaxdeck.stopping import WAKE_S

#: how long a kernel gets to answer its first request (a cold start of a Python with JAX installed)
START_S = 120.0
#: how long an interrupted cell gets to stop before the kernel counts as stuck
INTERRUPT_S = 60.0
#: the most text kept of a cell's outputs (what is compared is their kinds, errors and warnings)
KEEP_CHARS = 200_000
OUTPUTS = ("stream", "display_data", "execute_result", "error")
#: what the server says on a kernel's channel when the kernel died (and is being restarted, or is not)
DIED = ("restarting", "dead")


@dataclass
class Executed:
    """What one execute request came to. ``status``: ok, error, timeout (interrupted after its time
    limit, and stopped), stuck (did not stop when interrupted), died (the kernel died under it)."""

    status: str
    outputs: list[dict] = field(default_factory=list)
    start: str | None = None
    end: str | None = None
    ename: str | None = None
    evalue: str | None = None
    kept: int = 0             # characters of output text kept so far

    @property
    def seconds(self) -> float | None:
        return seconds_between(self.start, self.end)


class KernelChannel:
    """One kernel of the server at ``base`` (``http://HOST:PORT``), for the notebook at ``path``."""

    def __init__(self, base: str, token: str, path: str):
        self.base = base.rstrip("/")
        self.token = token
        self.path = path
        self.kernel_id: str | None = None
        self.session = uuid.uuid4().hex
        self.socket = None
        #: a stop (Ctrl-C, SIGTERM) while a cell runs interrupts it: on a kernel that outlives this process
        self.interrupt_on_stop = False
        # no proxy: the server is on this machine, whatever http_proxy a shared box sets
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    # ------------------------------------------------------------------ REST

    def request(self, method: str, route: str, body: dict | None = None, timeout: float = 30) -> dict:
        """The server's JSON answer to ``method /api/ROUTE``, or a one-line error naming what was asked."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"{self.base}/api/{route}", data=data, method=method,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            said = _message(err)
            raise DeckError(None, None, f"the live server answered {err.code} to {method} /api/{route.split('?')[0]}"
                            + (f": {said}" if said else ""), "run again with --log FILE and read the log") from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise DeckError(None, None, f"the live server did not answer {method} /api/{route.split('?')[0]} ({reason})",
                            "run again with --log FILE and read the log") from None
        return json.loads(text) if text.strip() else {}

    def notebook(self) -> dict:
        """The notebook the slideshow runs: the contents manager's view of the deck, as RISE's page gets it."""
        model = self.request("GET", f"contents/{quote(self.path)}?type=notebook&content=1")
        return model["content"]

    def start(self, kernel_name: str = "python3") -> None:
        """The deck's session (the slideshow's, when one runs already: ``present --detach`` keeps its
        kernel warm), its kernel's channel open, and the kernel answering."""
        session = self.request("POST", "sessions", {"path": self.path, "name": self.path.rsplit("/", 1)[-1],
                                                    "type": "notebook", "kernel": {"name": kernel_name}})
        self.kernel_id = session["kernel"]["id"]
        self.connect()
        self.kernel_info(START_S)

    def interrupt(self, timeout: float = 10) -> None:
        self.request("POST", f"kernels/{self.kernel_id}/interrupt", timeout=timeout)

    # ------------------------------------------------------------------ the channel

    def connect(self) -> None:
        import websocket

        url = self.base.replace("http", "ws", 1) + f"/api/kernels/{self.kernel_id}/channels?session_id={self.session}"
        try:
            self.socket = websocket.create_connection(url, header={"Authorization": f"token {self.token}"},
                                                      timeout=30, skip_utf8_validation=True)
        except (websocket.WebSocketException, OSError) as err:
            raise DeckError(None, None, f"cannot open the kernel's channel on the live server ({err})",
                            "run again with --log FILE and read the log") from None

    def close(self) -> None:
        if self.socket is not None:
            try:
                self.socket.close(timeout=1)
            except Exception:  # the server may be gone already: nothing left to close
                pass
            self.socket = None

    def send(self, msg_type: str, content: dict, channel: str = "shell") -> str:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": msg_type, "session": self.session, "username": "jaxdeck",
                  "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        self.socket.send(json.dumps({"header": header, "msg_id": msg_id, "msg_type": msg_type, "parent_header": {},
                                     "metadata": {}, "content": content, "channel": channel, "buffers": []}))
        return msg_id

    def receive(self) -> dict | None:
        """The next message, or None after :data:`WAKE_S` without one."""
        import websocket

        self.socket.settimeout(WAKE_S)
        try:
            opcode, data = self.socket.recv_data()
        except websocket.WebSocketTimeoutException:
            return None
        except (websocket.WebSocketConnectionClosedException, ConnectionError) as err:
            raise DeckError(None, None, f"the live server closed the kernel's channel ({type(err).__name__})",
                            "run again with --log FILE and read the log") from None
        if opcode == websocket.ABNF.OPCODE_BINARY:
            return _binary_message(data)
        if opcode != websocket.ABNF.OPCODE_TEXT:
            return None
        return json.loads(data.decode("utf-8", errors="replace"))

    def kernel_info(self, timeout: float) -> None:
        """Wait until the kernel answers (it has started), or a one-line error."""
        deadline = time.monotonic() + timeout
        asked = self.send("kernel_info_request", {})
        while time.monotonic() < deadline:
            msg = self.receive()
            if msg and msg.get("channel") == "shell" and _parent(msg) == asked:
                return
        raise DeckError(None, None, f"the live kernel did not answer within {timeout:.0f} s",
                        "run again with --log FILE and read the log")

    def execute(self, code: str, timeout_s: float, silent: bool = False) -> Executed:
        """Run ``code`` as the slideshow runs a cell (``silent``: as it runs a claim check, no output
        shown, no history); past ``timeout_s`` the kernel is interrupted, as the presenter would."""
        asked = self.send("execute_request", {"code": code, "silent": silent, "store_history": not silent,
                                              "user_expressions": {}, "allow_stdin": False, "stop_on_error": False})
        try:
            return self._wait(asked, timeout_s)
        except BaseException:
            if self.interrupt_on_stop:
                try:
                    self.interrupt(timeout=1)
                except Exception:  # the stop goes on whatever the server says
                    pass
            raise

    def _wait(self, asked: str, timeout_s: float) -> Executed:
        """The outputs and reply of the request ``asked``, interrupting it past ``timeout_s``."""
        run = Executed(status="ok")
        reply = idle = False
        clear_next = False
        deadline = time.monotonic() + timeout_s
        interrupted = None
        while not (reply and idle):
            now = time.monotonic()
            if interrupted is None and now > deadline:
                self.interrupt()
                interrupted = now
            elif interrupted is not None and now > interrupted + INTERRUPT_S:
                run.status = "stuck"
                return run
            msg = self.receive()
            if msg is None:
                continue
            kind, content = msg.get("msg_type") or msg["header"]["msg_type"], msg.get("content") or {}
            if kind == "status" and content.get("execution_state") in DIED:
                run.status = "died"
                return run
            if _parent(msg) != asked:
                continue
            if msg.get("channel") == "shell" and kind == "execute_reply":
                reply = True
                run.end = msg["header"].get("date")
                run.start = run.start or (msg.get("metadata") or {}).get("started")
                if content.get("status") != "ok":
                    run.status = "error"
                    run.ename, run.evalue = content.get("ename"), content.get("evalue")
            elif kind == "status":
                idle = idle or content.get("execution_state") == "idle"
            elif kind == "execute_input":
                run.start = msg["header"].get("date")
            elif kind == "clear_output":
                if content.get("wait"):
                    clear_next = True
                else:
                    run.outputs.clear()
            elif kind in OUTPUTS:
                if clear_next:
                    run.outputs.clear()
                    clear_next = False
                _keep(run, {"output_type": kind, **content})
        if interrupted is not None:
            run.status = "timeout"
        return run


def _parent(msg: dict) -> str | None:
    return (msg.get("parent_header") or {}).get("msg_id")


def _message(err: urllib.error.HTTPError) -> str:
    """The server's own words for a refused request (Jupyter answers ``{"message": ...}``)."""
    try:
        said = json.loads(err.read().decode("utf-8")).get("message") or ""
    except Exception:
        return ""
    return said.strip().splitlines()[0] if said.strip() else ""


def _binary_message(data: bytes) -> dict | None:
    """The JSON part of a message sent with binary buffers: a count, offsets, then the parts."""
    try:
        count = int.from_bytes(data[0:4], "big")
        offsets = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(count)]
        end = offsets[1] if count > 1 else len(data)
        return json.loads(data[offsets[0]:end].decode("utf-8"))
    except (ValueError, IndexError):
        return None


def _keep(run: Executed, output: dict) -> None:
    """``output`` added to ``run.outputs`` as nbformat keeps one, the text of them all kept under
    :data:`KEEP_CHARS` (a cell that prints for minutes still has its kinds, its errors and its warnings)."""
    room = max(0, KEEP_CHARS - run.kept)
    kind = output["output_type"]
    if kind == "stream":
        text = str(output.get("text", ""))[:room]
        last = run.outputs[-1] if run.outputs else None
        if last and last.get("output_type") == "stream" and last.get("name") == output.get("name"):
            last["text"] += text
        else:
            run.outputs.append({"output_type": "stream", "name": output.get("name", "stdout"), "text": text})
        run.kept += len(text)
        return
    if kind in ("display_data", "execute_result"):
        kept = {key: output[key] for key in ("output_type", "data", "metadata", "execution_count") if key in output}
        size = len(json.dumps(kept.get("data", {})))
        if size > room:  # its kinds still count; its text does not
            kept["data"], size = {mime: "" for mime in kept.get("data", {})}, 0
    else:
        kept = {key: output.get(key) for key in ("output_type", "ename", "evalue", "traceback")}
        size = len(json.dumps(kept))
    run.outputs.append(kept)
    run.kept += size
