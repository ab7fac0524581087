"""Another user of a shared box, after a live kernel: run as that user (setpriv), by any Python 3.

Usage: other_user_kernel_probe.py CONNECTION_FILE ENDPOINT... It tries to read the kernel's connection
file (its key signs every message) and to connect to each of the kernel's endpoints
(``tcp://HOST:PORT`` or ``ipc://PATH``, as zmq names them), as a subscriber to the kernel's iopub
channel would. It prints one JSON line: {"read": what reading the file came to, "endpoints":
{endpoint: "connected" or the error's name}}.
"""

import json
import socket
import sys


def outcome(action) -> str:
    try:
        action()
    except OSError as err:
        return type(err).__name__
    return "connected"


def connect(endpoint: str) -> None:
    kind, _, where = endpoint.partition("://")
    if kind == "tcp":
        host, _, port = where.rpartition(":")
        socket.create_connection((host, int(port)), timeout=5).close()
    else:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
            unix.connect(where)


def read(path: str) -> None:
    with open(path, "rb") as handle:
        handle.read()


connection_file, endpoints = sys.argv[1], sys.argv[2:]
print(json.dumps({"read": outcome(lambda: read(connection_file)).replace("connected", "read"),
                  "endpoints": {endpoint: outcome(lambda e=endpoint: connect(e)) for endpoint in endpoints}}))
