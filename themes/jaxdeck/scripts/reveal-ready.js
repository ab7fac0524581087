// jaxdeck: true once reveal.js has set the deck up (every caller that waits for a deck waits for this).
() => !!(window.Reveal && Reveal.isReady && Reveal.isReady())
