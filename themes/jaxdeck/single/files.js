// The self-contained deck's files that scripts ask for by URL at run time (a plugin's stylesheet,
// its images), served from the data: URIs in #jd-files instead of the network or the disk.
// A plugin inlined into the page no longer knows its own folder (document.currentScript.src is
// empty), so a request is matched to the file whose path shares the most trailing parts with it.
(function () {
  'use strict';
  var files = JSON.parse(document.getElementById('jd-files').textContent);
  var names = Object.keys(files).map(function (name) { return name.split('/'); });
  var LOCAL = /^(data|blob|javascript|about|mailto):/i;

  function find(url) {
    if (typeof url !== 'string' || url === '' || url.charAt(0) === '#' || LOCAL.test(url)) return null;
    var parts;
    try {
      parts = decodeURIComponent(new URL(url, document.baseURI).pathname).split('/');
    } catch (err) {
      return null;
    }
    var best = null, bestScore = 0;
    names.forEach(function (name) {
      var score = 0;
      while (score < name.length && score < parts.length &&
             name[name.length - 1 - score] === parts[parts.length - 1 - score]) score++;
      if (score > bestScore) { best = name.join('/'); bestScore = score; }
    });
    return best === null ? null : files[best];
  }

  function served(url) { return find(url) || url; }

  function inCss(value) {
    return typeof value !== 'string' ? value : value.replace(/url\(\s*(['"]?)([^'")]*)\1\s*\)/g,
      function (whole, quote, url) { var hit = find(url); return hit ? 'url("' + hit + '")' : whole; });
  }

  // element properties that load a file
  [[window.HTMLImageElement, 'src'], [window.HTMLScriptElement, 'src'], [window.HTMLLinkElement, 'href'],
   [window.HTMLSourceElement, 'src'], [window.HTMLMediaElement, 'src'], [window.HTMLIFrameElement, 'src'],
   [window.HTMLVideoElement, 'poster']].forEach(function (entry) {
    var proto = entry[0] && entry[0].prototype, described = proto && Object.getOwnPropertyDescriptor(proto, entry[1]);
    if (!described || !described.set) return;
    Object.defineProperty(proto, entry[1], {
      configurable: true, enumerable: described.enumerable, get: described.get,
      set: function (value) { described.set.call(this, served(value)); }
    });
  });

  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    var key = String(name).toLowerCase();
    if (key === 'style') value = inCss(value);
    else if ((key === 'src' || key === 'poster' || (key === 'href' && !(this instanceof HTMLAnchorElement))))
      value = served(value);
    return setAttribute.call(this, name, value);
  };

  // styles set from scripts (a pen's cursor, a background image): Chromium keeps each style's
  // properties on the object itself, so an element's style is handed out behind a proxy that
  // rewrites the url(...)s of what is written to it
  var proxies = new WeakMap();
  function styled(declaration) {
    if (!declaration) return declaration;
    var proxy = proxies.get(declaration);
    if (!proxy) {
      proxy = new Proxy(declaration, {
        get: function (target, key) {
          if (key === 'setProperty') {
            return function (name, value, priority) { return target.setProperty(name, inCss(value), priority); };
          }
          var value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
        set: function (target, key, value) { return Reflect.set(target, key, inCss(value), target); }
      });
      proxies.set(declaration, proxy);
    }
    return proxy;
  }
  [window.HTMLElement, window.SVGElement, window.MathMLElement].forEach(function (type) {
    var proto = type && type.prototype, described = proto && Object.getOwnPropertyDescriptor(proto, 'style');
    if (!described || !described.get) return;
    Object.defineProperty(proto, 'style', {
      configurable: true, enumerable: described.enumerable, set: described.set,
      get: function () { return styled(described.get.call(this)); }
    });
  });

  // files read by fetch or XMLHttpRequest
  if (window.fetch) {
    var fetch = window.fetch;
    window.fetch = function (input, init) {
      var url = typeof input === 'string' ? input : (input && input.url);
      var hit = find(url);
      return fetch.call(window, hit || input, init);
    };
  }
  var open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    var args = Array.prototype.slice.call(arguments);
    args[1] = served(url);
    return open.apply(this, args);
  };
})();
