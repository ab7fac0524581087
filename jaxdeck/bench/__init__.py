"""`make bench`, one module per benchmark; :mod:`jaxdeck.bench.suite` runs them and writes build/bench/.

- ``deck_stages``: one deck's build per stage against its floor, its rebuilds (``stock``: the stock pipeline);
- ``user_make``: `make` over every deck as a user runs it;
- ``edit_loop``: the preview's save-to-visible loop;
- ``calibration``: the timing harness's own benchmark (``demos.calibration``);
- ``structure``: import cycles and long modules, read from the source (``python -m jaxdeck.bench.structure``);
- ``report``: the printed tables; ``edits``, ``processes``: what the others share.
"""
