"""Where the live server listens: the port is bound once, by jaxdeck, and held until Jupyter serves on it."""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from support import command_line

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
DECK = "slides/present_demo.md"


@pytest.fixture
def repo(tmp_path):
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    (tmp_path / "slides").mkdir()
    shutil.copy(FIXTURES / "present_demo.md", tmp_path / DECK)
    return tmp_path


class Racer(threading.Thread):
    """Another program on the box that takes the port the Jupyter server was told to serve on, as soon as
    that server's process shows it (its command line), before the server has imported enough to bind it."""

    def __init__(self, deadline: float):
        super().__init__(daemon=True)
        self.deadline, self.done = deadline, threading.Event()
        self.seen: int | None = None
        self.taken: socket.socket | None = None

    def run(self) -> None:
        while not self.done.is_set() and time.monotonic() < self.deadline:
            for child in psutil.Process().children(recursive=True):
                with_port = re.search(r"--ServerApp\.port=(\d+)", command_line(child))
                if "jaxdeck.live.jupyter" in command_line(child) and with_port and int(with_port.group(1)):
                    self.seen = int(with_port.group(1))
                    self.take(self.seen)
                    return
            self.done.wait(0.01)

    def take(self, port: int) -> None:
        grab = socket.socket()
        try:
            grab.bind(("127.0.0.1", port))
            grab.listen()
        except OSError:  # held already: nothing to take
            grab.close()
            return
        self.taken = grab


@pytest.mark.heavy
def test_no_other_program_can_take_the_port_while_the_server_starts(repo):
    """A port found free and let go can be taken before Jupyter binds it (it takes seconds to start): the
    server would then fail to start. The port is held from the moment it is chosen until Jupyter serves."""
    from jaxdeck.live.server import start_server

    racer = Racer(time.monotonic() + 120)
    racer.start()
    try:
        with start_server(repo, port=0) as server:
            racer.done.set()
            racer.join(30)
            assert racer.seen == server.port, "the server's process never showed its port"
            assert racer.taken is None, f"another program took port {server.port} as the server started"
            request = urllib.request.Request(server.api("status"), headers={"Authorization": f"token {server.token}"})
            with urllib.request.urlopen(request, timeout=30) as response:
                assert response.status == 200
    finally:
        racer.done.set()
        racer.join(30)
        if racer.taken is not None:
            racer.taken.close()


def test_a_port_the_presenter_chose_that_is_taken_is_one_line(repo, monkeypatch, capsys):
    from jaxdeck.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.chdir(repo)
        assert main(["present", "--port", str(port), "--no-browser", DECK]) == 1
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and f"port {port} on 127.0.0.1 is in use" in said[0] and "PORT=8889" in said[0], said
    assert not [child for child in psutil.Process().children(recursive=True)
                if "jaxdeck.live.jupyter" in command_line(child)], "a server started on a taken port"
