#!/usr/bin/env bash
# Every deck built on a box that brings its own JAX, through the offline wheelhouse, as a presenter
# would there: `make wheelhouse` here, the folder copied over, then on the box
#     bash gpu/build-decks.sh WHEELHOUSE OUT [PYTHON]
# installs jaxdeck from WHEELHOUSE with no network into PYTHON's environment (default python3), each
# wheel checked against its hash in WHEELHOUSE/requirements.txt,
# builds each deck of slides/ (no PDFs) in a folder with no repository around it, one deck at a
# time (decks share the GPU), with --allow-errors so that every failing check of a deck is listed,
# and writes OUT/box.txt (device, versions), OUT/install.txt, OUT/results.txt (a line per deck:
# built or not, and every check or error that failed) and OUT/decks.tar.gz (the executed
# notebooks and each deck's log). The notebooks are the GPU's figures: copy them to gpu/KIND/
# and `make pdf FROZEN=gpu/KIND` builds handouts from them anywhere. DECKS="a.md b.md" builds only those.
# REHEARSE="05-many-devices.md example.md" then rehearses those decks on the box with no browser
# (`jaxdeck rehearse --no-browser`: the live server's kernel runs every slide's cells as the talk would;
# it needs the live extra, `make wheelhouse WITH=live`), each report in OUT/rehearse-NAME.txt and the
# JSON and HTML reports in the archive.
set -uo pipefail
wheelhouse=$(realpath "$1"); out=$(realpath "$2"); python=${3:-python3}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
{ nvidia-smi -L 2>/dev/null; "$python" -c 'import sys, jax, jaxlib; print("python", sys.version.split()[0]); print("jax", jax.__version__, "jaxlib", jaxlib.__version__); print(jax.devices())'; } > "$out/box.txt" 2>&1
"$python" -m pip list --format=freeze > "$out/have.txt" 2>/dev/null
# every wheel checked against the sha256 that the folder's requirements.txt pins it by (uv.lock's)
"$python" -m pip install --require-hashes --no-index --find-links "$wheelhouse" -r "$wheelhouse/requirements.txt" \
  > "$out/install.txt" 2>&1 \
  || { tail -n 20 "$out/install.txt"; exit 1; }
cp -r "$here/slides" "$work/talk" && cd "$work/talk" && mkdir logs
: > "$out/results.txt"   # this run's lines only: an OUT used before keeps no deck's line from then
for deck in ${DECKS:-*.md}; do
  [ "$deck" = README.md ] && continue
  start=$(date +%s)
  timeout 200 "$python" -m jaxdeck build --allow-errors --jobs 1 "$deck" > "logs/${deck%.md}.log" 2>&1
  echo "$deck exit $? in $(( $(date +%s) - start )) s" | tee -a "$out/results.txt"
done
said=$(wc -l < "$out/results.txt")   # the lines above were printed as each deck ended
"$python" - "$out/results.txt" <<'PY'
import json, pathlib, sys
with open(sys.argv[1], "a") as out:
    for nb in sorted(pathlib.Path("build/notebooks").glob("*.ipynb")):
        record = json.loads(nb.read_text())["metadata"].get("jaxdeck_build", {})
        for warning in record.get("warnings") or []:
            print(f"{nb.stem}: {warning}", file=out)
PY
for deck in ${REHEARSE:-}; do
  timeout 600 "$python" -m jaxdeck rehearse --no-browser "$deck" > "$out/rehearse-${deck%.md}.txt" 2>&1
  echo "$deck rehearsed on the box: exit $?" >> "$out/results.txt"
done
tail -n +$((said + 1)) "$out/results.txt"   # the rest: each build's warnings, each rehearsal's end
tar czf "$out/decks.tar.gz" build/notebooks logs $( [ -d build/rehearsal ] && echo build/rehearsal )
