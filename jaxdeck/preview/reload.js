// jaxdeck preview: reload the deck when it is rebuilt, at the slide (and fragment) on show;
// show a build error as one line over the last good deck. Served by `jaxdeck preview` only.
(function () {
  'use strict';

  var script = document.currentScript;
  var version = Number(script.dataset.version || 0);
  var key = 'jaxdeck-preview:' + (script.dataset.deck || location.pathname);
  var reloading = false;

  function reveal() {
    return window.Reveal && Reveal.isReady && Reveal.isReady() ? Reveal : null;
  }

  // Reveal keeps the slide in the URL hash, which a reload keeps; its state adds the rest
  // (fragment, overview, pause), handed over through sessionStorage.
  function saveState() {
    var deck = reveal();
    if (deck) {
      sessionStorage.setItem(key, JSON.stringify(deck.getState()));
    }
  }

  function restoreState() {
    var saved = sessionStorage.getItem(key);
    sessionStorage.removeItem(key);
    if (saved && reveal()) {
      try {
        Reveal.setState(JSON.parse(saved));
      } catch (err) {
        // a state from a deck that has since lost slides: the hash has put us close enough
      }
    }
  }

  function bar(id, css) {
    var element = document.getElementById(id);
    if (!element) {
      element = document.createElement('div');
      element.id = id;
      Object.assign(element.style, {
        position: 'fixed', zIndex: 2147483647, font: '14px/1.6 system-ui, sans-serif',
        whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', pointerEvents: 'none'
      }, css);
      document.body.appendChild(element);
    }
    return element;
  }

  function showError(text) {
    var element = bar('jaxdeck-preview-error', {
      top: '0', left: '0', right: '0', padding: '4px 12px', background: '#b00020', color: '#fff'
    });
    element.textContent = text;
    element.title = text;
  }

  function clearError() {
    var element = document.getElementById('jaxdeck-preview-error');
    if (element) {
      element.remove();
    }
  }

  // the top-right corner, where reveal.js draws nothing: its slide number holds the bottom-left one (the
  // theme's spellings.css), its arrows the bottom-right, the deck's footer and logo the bottom edge; under
  // the error bar while one shows
  function showWarm(warm) {
    var element = bar('jaxdeck-preview-warm', {
      top: '4px', right: '8px', padding: '0 8px', background: 'rgba(0, 0, 0, 0.55)', color: '#fff',
      fontSize: '12px', borderRadius: '3px'
    });
    element.textContent = 'warm kernel: later cells keep their outputs; R runs the deck afresh';
    element.style.display = warm ? 'block' : 'none';
    var error = document.getElementById('jaxdeck-preview-error');
    element.style.top = (error ? Math.ceil(error.getBoundingClientRect().bottom) + 4 : 4) + 'px';
  }

  function update(state) {
    if (reloading) {
      return;
    }
    if (state.version > version) {
      reloading = true;
      saveState();
      location.reload();
      return;
    }
    if (state.error) {
      showError(state.error);
    } else {
      clearError();
    }
    showWarm(Boolean(state.warm) && state.version > 0);
  }

  new EventSource('/_preview/events').onmessage = function (event) {
    update(JSON.parse(event.data));
  };

  if (window.Reveal) {
    if (Reveal.isReady()) {
      restoreState();
    } else {
      Reveal.on('ready', restoreState);
    }
    Reveal.addKeyBinding({ keyCode: 82, key: 'R', description: 'Preview: run the deck afresh in a new kernel' },
      function () {
        fetch('/_preview/fresh', { method: 'POST' });
      });
  }
})();
