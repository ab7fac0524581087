"""`jaxdeck preview`: the HTML deck served on 127.0.0.1, rebuilt on every save, reloaded at the same slide.

- :mod:`.session`: what a save rebuilds (prose: nothing runs; code: the changed cells in a
  warm kernel; a fresh kernel when that could mislead) into ``build/preview/NAME.html``;
- :mod:`.watch`: the deck, its images and the theme, polled for changes;
- :mod:`.server`: the HTML and a stream of rebuilds for ``reload.js`` in the page;
- :mod:`.access`: the token every request needs (in the printed URL, then a cookie).
"""
