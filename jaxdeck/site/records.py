"""The site's up-to-date records, kept apart from the site (``build/cache/site/``) so the folder handed out
holds pages only.

Each page, picture and gathered talk the site makes is recorded with the digest of what it was made from
and the sha256 of what was written, as :mod:`jaxdeck.stamps` does for a deck's artefacts: it is made again
only when its inputs changed or its file is not as written. The records are one JSON file, rewritten only
when a record changed.
"""

from __future__ import annotations

import json
from pathlib import Path

from jaxdeck.atomic import write_bytes, write_text
from jaxdeck.execute.fingerprint import digest
from jaxdeck.stamps import file_sha, record_path

SCHEMA = 1


def recorded_sha(artefact: Path) -> str | None:
    """The sha256 the build recorded for ``artefact`` (read from its record, not its bytes: the build that
    just ran checked them), else its own."""
    try:
        record = json.loads(record_path(artefact).read_text(encoding="utf-8"))
        if isinstance(record, dict) and isinstance(record.get("sha256"), str):
            return record["sha256"]
    except (OSError, ValueError):
        pass
    return file_sha(artefact)


class Records:
    """What every file the site made was made from: ``{name: {"inputs": digest, "sha256": sha}}``."""

    def __init__(self, path: Path):
        self.path = path
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = {}
        ok = isinstance(found, dict) and found.get("schema") == SCHEMA and isinstance(found.get("files"), dict)
        self.files: dict[str, dict] = dict(found["files"]) if ok else {}
        self.changed = False

    def holds(self, made: Path, inputs) -> bool:
        """Whether ``made`` is as written from these ``inputs``."""
        record = self.files.get(str(made))
        return isinstance(record, dict) and record.get("inputs") == digest(inputs) \
            and record.get("sha256") == file_sha(made)

    def note(self, made: Path, inputs) -> None:
        record = {"inputs": digest(inputs), "sha256": file_sha(made)}
        if self.files.get(str(made)) != record:
            self.files[str(made)] = record
            self.changed = True

    def write(self, made: Path, data: bytes | str, inputs) -> bool:
        """Write ``made`` (unless it holds these bytes already) and record it; whether it was written."""
        data = data.encode("utf-8") if isinstance(data, str) else data
        written = False
        try:
            same = made.read_bytes() == data
        except OSError:
            same = False
        if not same:
            write_bytes(made, data)
            written = True
        self.note(made, inputs)
        return written

    def forget(self, kept: set[Path]) -> None:
        for name in [n for n in self.files if Path(n) not in kept]:
            del self.files[name]
            self.changed = True

    def save(self) -> None:
        if self.changed:
            write_text(self.path, json.dumps({"schema": SCHEMA, "files": self.files}, indent=1, sort_keys=True) + "\n")
            self.changed = False
