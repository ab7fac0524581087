"""Another user of a shared box, after the live token: run as that user (setpriv), by any Python 3.

Usage: other_user_reader.py FOLDER STOPFILE SECONDS. Until STOPFILE appears (or SECONDS pass) it
tries to open, as fast as it can, the files where a detached present's record and log go (to catch
any moment one is readable), and now and then every file under FOLDER (two levels, temporary
files included) and in a live server's private folder in the temporary folder. A file opened in
that moment is read to its end, whatever its mode becomes after. It prints one JSON line:
{"tries": N, "opened": [paths], "read": {path: [each text read]}}.
"""

import glob
import json
import os
import sys
import tempfile
import time

folder, stop_file, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
deadline = time.monotonic() + seconds
#: where a detached present's record and log go (this version's and an older one's)
known = [os.path.join(folder, name) for name in ("present.json", "present.log", "present/present.json",
                                                  "present/present.log")]
tries, opened, read = 0, set(), {}
FLAGS = os.O_RDONLY | os.O_NONBLOCK


def listing(top: str, depth: int) -> list:
    found = []
    try:
        entries = list(os.scandir(top))
    except OSError:
        return found
    for entry in entries:
        found.append(entry.path)
        if depth > 1:
            try:
                if entry.is_dir(follow_symlinks=False):
                    found += listing(entry.path, depth - 1)
            except OSError:
                pass
    return found


def homes() -> list:
    found = []
    for home in glob.glob(os.path.join(tempfile.gettempdir(), "jaxdeck-jupyter-*")):
        found += listing(home, 3)
    return found


def take(fd: int, path: str) -> None:
    """Read an opened file to its end (a file caught while it is written: wait for its end a little)."""
    data = b""
    try:
        opened.add(path)
        for _ in range(100):
            chunk = os.read(fd, 1 << 16)
            data += chunk
            if not chunk and data:
                break
            if not chunk:
                time.sleep(0.002)
    except OSError:
        pass
    finally:
        os.close(fd)
    text = data.decode("utf-8", "replace")
    if text and text not in read.setdefault(path, []):
        read[path].append(text)


def try_open(path: str) -> None:
    global tries
    tries += 1
    try:
        fd = os.open(path, FLAGS)
    except OSError:
        return
    take(fd, path)


others, checked = homes(), time.monotonic()
while time.monotonic() < deadline and not os.path.exists(stop_file):
    for _ in range(1000):  # where a record or a log goes, flat out: a moment's window is enough
        for path in known:
            try:
                fd = os.open(path, FLAGS)
            except OSError:
                continue
            take(fd, path)
    tries += 1000 * len(known)
    for path in listing(folder, 2) + others:  # and everything else there now, temporary files included
        try_open(path)
    if time.monotonic() - checked > 1:
        others, checked = homes(), time.monotonic()
print(json.dumps({"tries": tries, "opened": sorted(opened), "read": read}))
