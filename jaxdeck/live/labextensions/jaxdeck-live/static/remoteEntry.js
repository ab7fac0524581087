/* jaxdeck-live: a JupyterLab federated extension for RISE's slideshow page, written as a
 * plain script. It speaks the module-federation container protocol that JupyterLab uses
 * to load prebuilt extensions (window._JUPYTERLAB[name] with init(shareScope) and
 * get(module)), so it needs no bundler: every JupyterLab package it uses comes from the
 * page's shared scope, which makes its tokens the page's own.
 *
 * init() also fills one gap in RISE's page: it does not share @jupyterlab/console, which
 * the ipywidgets manager imports for an optional token, so widgets fail to load there.
 * A stand-in module providing only that token lets the widget manager start.
 */
var _JUPYTERLAB = (window._JUPYTERLAB = window._JUPYTERLAB || {});
(function () {
  "use strict";
  const NAME = "jaxdeck-live";
  const here = document.currentScript ? document.currentScript.src : "";
  let scope = null;

  /** The module `name` from the shared scope (its highest version). */
  async function shared(name) {
    const versions = scope && scope[name];
    if (!versions) throw new Error(`${NAME}: ${name} is not shared on this page`);
    const newest = Object.keys(versions).sort(compareVersions).pop();
    const entry = versions[newest];
    entry.loaded = 1;
    const factory = await entry.get();
    return factory();
  }

  function compareVersions(a, b) {
    const pa = a.split(/[.-]/).map(Number), pb = b.split(/[.-]/).map(Number);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const d = (pa[i] || 0) - (pb[i] || 0);
      if (d) return d;
    }
    return 0;
  }

  /** Register a stand-in for a package the page does not share, holding tokens only. */
  function standIn(name, version, tokens) {
    if (scope[name]) return;
    scope[name] = {
      [version]: {
        from: NAME,
        eager: false,
        get: () => shared("@lumino/coreutils").then((lumino) => () => {
          const module = { __esModule: true };
          for (const [key, id] of Object.entries(tokens)) module[key] = new lumino.Token(id);
          return module;
        }),
      },
    };
  }

  function loadScript(file) {
    return new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = new URL(file, here).href;
      tag.onload = resolve;
      tag.onerror = () => reject(new Error(`${NAME}: cannot load ${file}`));
      document.head.appendChild(tag);
    });
  }

  _JUPYTERLAB[NAME] = {
    init(shareScope) {
      scope = shareScope;
      standIn("@jupyterlab/console", "4.3.4", { IConsoleTracker: "@jupyterlab/console:IConsoleTracker" });
    },
    async get(module) {
      if (module !== "./extension") throw new Error(`${NAME}: no module ${module}`);
      const [notebook, apputils, reveal] = await Promise.all([
        shared("@jupyterlab/notebook"), shared("@jupyterlab/apputils"), shared("reveal.js")]);
      await loadScript("slideshow.js");
      const plugin = {
        id: `${NAME}:slideshow`,
        description: "The deck's look and presenter keys in RISE's slideshow.",
        autoStart: true,
        requires: [notebook.INotebookTracker],
        optional: [],
        activate: (app, tracker) => window.jaxdeckSlideshow.activate(app, tracker, {
          NotebookActions: notebook.NotebookActions,
          Dialog: apputils.Dialog,
          Reveal: reveal.default || reveal,
        }),
      };
      return () => ({ __esModule: true, default: plugin });
    },
  };
})();
