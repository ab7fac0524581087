"""An executed notebook made elsewhere (``--frozen``), checked against nbformat's schema before anything reads it.

A kept notebook is a file another machine (or another person) wrote: an output without ``data``, a
``text`` that is a number or ``outputs`` that is not a list would otherwise fail deep in a build with
a traceback. :func:`read_executed` validates the JSON with nbformat's validator and turns its first
error into one line naming the file, where in the notebook (``cell 4, output 2``) and the field::

    gpu/h100/01.ipynb: cell 4, output 2: 'data' is missing (an object); give an executed notebook ...

JSON nested too deep for Python's parser is said so; ``cells`` is checked to be a list of objects
first (nbformat's validator writes into each cell before it validates); and an output bigger than the
deck's cap (``max_output_mb:``, which a build cuts its own outputs to) is refused, naming it, rather
than made into a deck the browser never finishes laying out.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from jsonschema import Draft7Validator
from jsonschema.exceptions import best_match
from nbformat.validator import ValidationError, validate

from jaxdeck.errors import DeckError
from jaxdeck.execute.limits import MB, size_of

#: what to do about a notebook of the wrong shape
HINT = "give the executed notebook `jaxdeck build` wrote (build/notebooks/NAME.ipynb), unedited"
#: JSON schema types as a sentence says them
TYPES = {"object": "an object", "array": "a list", "string": "a string", "number": "a number",
         "integer": "a whole number", "boolean": "true or false", "null": "null"}
#: how many characters of a message the line keeps
SHORT = 120

#: what nbformat's validator takes for granted before it validates (it gives each cell an id)
CELLS = {"type": "object", "properties": {"cells": {"type": "array", "items": {"type": "object"}}}}

#: the build record's fields a frozen build takes from a kept notebook (``metadata.jaxdeck_build``,
#: :class:`jaxdeck.records.BuildRecord`): free-form to nbformat, drawn on the title slide and the handout
BUILD_RECORD = {
    "definitions": {
        "share": {"type": ["array", "null"], "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "machine": {"type": ["object", "null"], "properties": {
            "device_count": {"type": ["integer", "null"]}, "cpu_share": {"$ref": "#/definitions/share"}},
            "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
    },
    "type": "object",
    "properties": {
        "executed_at": {"type": ["string", "null"]},
        "provenance": {"$ref": "#/definitions/machine"},
        "frozen_provenance": {"$ref": "#/definitions/machine"},
        "own_provenance": {"$ref": "#/definitions/machine"},
        "kernel_start_s": {"type": ["number", "null"]},
        "execute_s": {"type": ["number", "null"]},
        "kernel_peak_rss_mb": {"type": ["number", "null"]},
        "cells_executed": {"type": ["integer", "null"]},
        "cells_reused": {"type": ["integer", "null"]},
        "cpu_share": {"$ref": "#/definitions/share"},
    },
}


def _schema(minor: object) -> dict:
    """nbformat's v4 schema of minor version ``minor`` (the newest when there is no file for it)."""
    folder = Path(nbformat.v4.__file__).parent
    path = folder / f"nbformat.v4.{minor}.schema.json"
    if not (isinstance(minor, int) and path.is_file()):
        path = folder / "nbformat.v4.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _resolved(schema: dict, root: dict) -> dict:
    """``schema`` with its ``$ref`` (``#/definitions/...``) followed in ``root``."""
    for _ in range(20):  # a reference to a reference, not a loop
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            break
        schema = root
        for part in ref[2:].split("/"):
            schema = schema.get(part, {}) if isinstance(schema, dict) else {}
    return schema if isinstance(schema, dict) else {}


def kind(schema: dict, root: dict) -> str:
    """What a value ``schema`` allows is, in a few words (``a string or a list of strings``); empty: unknown."""
    schema = _resolved(schema, root)
    options = schema.get("oneOf") or schema.get("anyOf")
    if options:
        said = [kind(option, root) for option in options]
        return " or ".join(dict.fromkeys(s for s in said if s)) if all(said) else ""
    types = schema.get("type")
    if isinstance(types, list):
        return " or ".join(TYPES.get(t, t) for t in types)
    if types == "array" and isinstance(schema.get("items"), dict):
        items = kind(schema["items"], root)
        if items.startswith(("a ", "an ")):
            return "a list of " + items.split(" ", 1)[1] + "s"
    if isinstance(schema.get("enum"), list):
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    return TYPES.get(types, "") if isinstance(types, str) else ""


def where(path) -> tuple[str, str]:
    """(``cell 4, output 2``, ``metadata.tags``) for a path into the notebook (``cells``, 3, ``outputs``, 1, ...)."""
    places, fields, parts = [], [], list(path)
    k = 0
    while k < len(parts):
        part, after = parts[k], parts[k + 1] if k + 1 < len(parts) else None
        if part in ("cells", "outputs") and isinstance(after, int) and not fields:
            places.append(f"{'cell' if part == 'cells' else 'output'} {after + 1}")
            k += 2
            continue
        fields.append(f"[{part}]" if isinstance(part, int) else str(part))
        k += 1
    return ", ".join(places), ".".join(fields).replace(".[", "[")


def fault(error, root: dict, prefix: tuple = ()) -> str:
    """A validation error (nbformat's, or jsonschema's of the part at ``prefix``) as a few words: where,
    which field, and what it must be."""
    place, field = where([*prefix, *error.absolute_path])
    if error.validator == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = next((name for name in error.validator_value if name not in instance), "?")
        shape = kind(((error.schema or {}).get("properties") or {}).get(missing, {}), root)
        field = f"{field}.{missing}" if field else missing
        what = f"'{field}' is missing" + (f" ({shape})" if shape else "")
    else:
        shape = kind(error.schema or {}, root) if error.validator in ("type", "oneOf", "anyOf", "enum") else ""
        if shape and field:
            what = f"'{field}' must be {shape}"
        else:
            message = " ".join(str(error.message).split())
            message = message if len(message) <= SHORT else message[:SHORT - 1] + "…"
            what = f"'{field}': {message}" if field else message
    return f"{place}: {what}" if place else what


def oversized(raw: dict, limit_mb: float) -> str | None:
    """Where the first output of a validated notebook ``raw`` bigger than ``limit_mb`` is, and its size, in
    a few words (None: none is)."""
    for c, cell in enumerate(raw["cells"]):
        for o, output in enumerate(cell.get("outputs") or ()):
            size = size_of(output)
            if size > limit_mb * MB:
                return (f"cell {c + 1}, output {o + 1}: {size / MB:.1f} MB, over the deck's {limit_mb:g} MB cap "
                        "on a cell's outputs (max_output_mb:)")
    return None


def read_executed(path: str | Path, hint: str = HINT, max_output_mb: float | None = None) -> nbformat.NotebookNode:
    """The notebook at ``path`` (nbformat 4), or a one-line DeckError naming the file and the field that is wrong,
    and ``hint``: what to do; with ``max_output_mb``, an output bigger than that is wrong too."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise DeckError(path, None, f"cannot be read ({type(err).__name__})", hint) from None
    try:
        raw = json.loads(text)
    except ValueError as err:
        raise DeckError(path, getattr(err, "lineno", None), "not a notebook: not JSON", hint) from None
    except RecursionError:
        raise DeckError(path, None, "not a notebook: its JSON nests too deep to read", hint) from None
    if not isinstance(raw, dict) or raw.get("nbformat") != 4:
        raise DeckError(path, None, "not a notebook of nbformat 4 ('nbformat': 4 at its top)", hint)
    error = best_match(Draft7Validator(CELLS).iter_errors(raw))
    if error is not None:
        raise DeckError(path, None, fault(error, CELLS), hint)
    try:
        validate(raw, version=4, version_minor=raw.get("nbformat_minor") if isinstance(raw.get("nbformat_minor"), int)
                 else None)
    except ValidationError as error:
        raise DeckError(path, None, fault(error, _schema(raw.get("nbformat_minor"))), hint) from None
    record = raw.get("metadata", {}).get("jaxdeck_build")
    if record is not None:
        error = best_match(Draft7Validator(BUILD_RECORD).iter_errors(record))
        if error is not None:
            raise DeckError(path, None, fault(error, BUILD_RECORD, ("metadata", "jaxdeck_build")), hint)
    too_big = oversized(raw, max_output_mb) if max_output_mb is not None else None
    if too_big:
        raise DeckError(path, None, too_big, "give the notebook a build with this deck's cap wrote, "
                        "or raise max_output_mb: in the deck's header")
    try:
        return nbformat.reads(text, as_version=4)
    except Exception as err:  # valid JSON nbformat still refuses: said, not shown as a traceback
        raise DeckError(path, None, f"not a readable notebook ({type(err).__name__})", hint) from None
