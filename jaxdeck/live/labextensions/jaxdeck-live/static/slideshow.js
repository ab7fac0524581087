/* jaxdeck's behaviour for RISE's slideshow page (loaded by remoteEntry.js).
 *
 * RISE lays the notebook's cells out as reveal.js sections; this adds what the static
 * deck has and a live talk needs:
 *   - the title slide's byline and provenance, columns side by side, notes rendered once,
 *     empty marker cells hidden, stepped code-line highlights;
 *   - Shift+Enter runs the current slide's code from the first press, and stays on the slide;
 *   - I I interrupts, 0 0 restarts, R re-runs every code cell before the current slide
 *     (quietly, in order) after the kernel died or was restarted; a one-line status says so;
 *   - claim checks (code cells tagged `check`, never shown) run quietly right after the cell
 *     before them; one that fails says so on the status line, never with a traceback.
 * Everything it reads comes from the notebook the server sends: cell metadata `jaxdeck`
 * (slide structure) and notebook metadata `jaxdeck_live` (title markup).
 */
window.jaxdeckSlideshow = (function () {
  "use strict";

  const DOUBLE_PRESS_MS = 800;
  const AUTO_SELECT_MS = 500;  // RISE selects the slide's first code cell 450 ms after a move
  const KEYS = [
    { keyCode: 73, key: "I I", description: "Interrupt the kernel (press I twice)" },
    { keyCode: 48, key: "0 0", description: "Restart the kernel (press 0 twice)" },
    { keyCode: 82, key: "R", description: "Recover: re-run the code cells before this slide" },
    { keyCode: 1000, key: "Shift Enter", description: "Run the slide's next code cell" },
  ];

  function activate(app, tracker, lib) {
    if (app.name !== "Rise") return;  // the same extension loads in JupyterLab: nothing to do there
    const { Reveal, NotebookActions } = lib;
    const live = { panel: null, lastKey: null, lastKeyAt: 0, busy: false, reveal: Reveal };
    window.jaxdeckLive = live;  // for the end-to-end tests and a curious presenter's console

    const status = document.createElement("div");
    status.className = "jd-live-status";
    status.setAttribute("role", "status");
    status.hidden = true;
    document.body.appendChild(status);
    let statusTimer = null;

    function say(text, { sticky = false, kind = "info" } = {}) {
      clearTimeout(statusTimer);
      status.textContent = text;
      status.dataset.kind = kind;
      status.hidden = false;
      if (!sticky) statusTimer = setTimeout(() => { status.hidden = true; }, 4000);
    }

    function meta(cell) {
      return (cell.model.getMetadata && cell.model.getMetadata("jaxdeck")) || {};
    }

    function currentSlide() {
      return Reveal.getCurrentSlide ? Reveal.getCurrentSlide() : document.querySelector(".reveal .slides section.present section.present, .reveal .slides section.present");
    }

    /** The innermost section (slide) that holds `node`. */
    function slideOf(node) {
      let slide = null;
      for (let n = node; n; n = n.parentElement) if (n.tagName === "SECTION") { slide = n; break; }
      return slide;
    }

    function isCheck(cell) {
      return cell.model.type === "code" && (cell.model.getMetadata("tags") || []).includes("check");
    }

    function codeCellsOn(slide) {
      return live.panel.content.widgets.filter((c) => c.model.type === "code" && slideOf(c.node) === slide
        && !c.model.getMetadata("highlight") && !isCheck(c));
    }

    // ---------------------------------------------------------------- layout
    function decorate(panel) {
      const cells = panel.content.widgets;
      for (const cell of cells) {
        const info = meta(cell);
        if (cell.model.type === "markdown" && !cell.model.sharedModel.getSource().trim()) {
          cell.node.classList.add("jd-empty");
        }
        if (cell.model.getMetadata("highlight")) cell.node.classList.add("jd-listing");
        if (info.in_columns) cell.node.dataset.jdColumn = info.column_start ? "start" : "in";
      }
      for (const section of document.querySelectorAll(".reveal .slides section")) layoutColumns(section);
      renderNotes();
      titleSlide(panel);
      for (const cell of cells) if (cell.model.getMetadata("highlight")) steps(cell);
    }

    /** Cells after a `|||` marker go into side-by-side columns, as in the static deck. */
    function layoutColumns(section) {
      const children = [...section.children].filter((child) => child.tagName !== "SECTION");
      let row = null, column = null;
      for (const child of children) {
        const marked = child.matches("[data-jd-column]") ? child : child.querySelector("[data-jd-column]");
        if (!marked) { column = null; continue; }
        if (marked.dataset.jdColumn === "start" || !column) {
          if (!row) {
            row = document.createElement("div");
            row.className = "jd-columns";
            section.insertBefore(row, child);
          }
          column = document.createElement("div");
          column.className = "jd-column";
          row.appendChild(column);
        }
        column.appendChild(child);
      }
    }

    /** reveal.js reads `aside.notes` as HTML: give it the rendered notes only, once per cell. */
    function renderNotes() {
      for (const aside of document.querySelectorAll(".reveal aside.notes")) {
        if (aside.dataset.jdNotes) continue;
        const rendered = aside.querySelector(".jp-RenderedMarkdown");
        if (!rendered) continue;
        const holder = document.createElement("div");
        holder.className = "jd-notes-cells";
        holder.hidden = true;
        while (aside.firstChild) holder.appendChild(aside.firstChild);
        aside.innerHTML = rendered.innerHTML;
        aside.dataset.jdNotes = "1";
        aside.after(holder);
      }
    }

    function titleSlide(panel) {
      const live = panel.model.getMetadata("jaxdeck_live") || {};
      const first = panel.content.widgets[0];
      if (!live.title_html || !first || document.querySelector(".jd-title-extra")) return;
      const extra = document.createElement("div");
      extra.className = "jd-title-extra";
      extra.innerHTML = live.title_html;  // built and escaped by the server (jaxdeck.layout)
      first.node.after(extra);
    }

    /** A listing with `highlight="1|2-3"`: one fragment per step, lines dimmed by CSS. */
    function steps(cell) {
      const spec = String(cell.model.getMetadata("highlight"));
      const groups = spec.split("|").map((group) => {
        const lines = new Set();
        for (const part of group.split(",")) {
          const [a, b] = part.split("-").map((x) => parseInt(x, 10));
          if (!Number.isFinite(a)) continue;
          for (let n = a; n <= (Number.isFinite(b) ? b : a); n++) lines.add(n);
        }
        return [...lines];
      });
      const id = `jd-steps-${Math.random().toString(36).slice(2, 9)}`;
      cell.node.id = id;
      const style = document.createElement("style");
      style.textContent = groups.map((lines, k) => {
        const keep = lines.map((n) => `:not(:nth-child(${n}))`).join("");
        return `#${id}[data-jd-step="${k}"] .cm-content > .cm-line${keep} { opacity: 0.3; }`;
      }).join("\n");
      document.head.appendChild(style);
      cell.node.dataset.jdStep = "0";
      let anchor = cell.node;
      for (let k = 1; k < groups.length; k++) {  // one fragment per further step, in order
        const marker = document.createElement("span");
        marker.className = "fragment jd-step";
        marker.dataset.jdStep = String(k);
        marker.dataset.jdFor = id;
        anchor.after(marker);
        anchor = marker;
      }
    }

    function syncSteps() {
      for (const listing of document.querySelectorAll(".jd-listing[id]")) {
        const shown = document.querySelectorAll(`.jd-step.visible[data-jd-for="${listing.id}"]`);
        listing.dataset.jdStep = String(Math.max(0, ...[...shown].map((m) => parseInt(m.dataset.jdStep, 10))));
      }
    }

    // ---------------------------------------------------------------- running code
    function cellAtFocus(slide) {
      const active = document.activeElement;
      return codeCellsOn(slide).find((c) => c.node.contains(active));
    }

    async function runOnSlide() {
      const panel = live.panel, notebook = panel.content, slide = currentSlide();
      const onSlide = codeCellsOn(slide);
      if (!onSlide.length) return;
      let cell = cellAtFocus(slide);
      if (!cell) cell = onSlide.includes(notebook.activeCell) ? notebook.activeCell : onSlide[0];
      const index = notebook.widgets.indexOf(cell);
      notebook.activeCellIndex = index;
      notebook.deselectAll();
      notebook.mode = "command";
      const next = onSlide[onSlide.indexOf(cell) + 1];
      const ran = NotebookActions.run(notebook, panel.sessionContext);
      if (next) notebook.activeCellIndex = notebook.widgets.indexOf(next);
      notebook.node.focus({ preventScroll: true });
      await ran;
      keepInView(cell);
    }

    function keepInView(cell) {
      const slide = slideOf(cell.node);
      if (!slide || !slide.classList.contains("present")) return;
      const outputs = cell.node.querySelector(".jp-OutputArea") || cell.node;
      outputs.scrollIntoView({ block: "nearest" });
    }

    /** The checks that follow `cell`: up to the next code cell that is not a check. */
    function checksAfter(cell) {
      const cells = live.panel.content.widgets, found = [];
      for (let i = cells.indexOf(cell) + 1; i < cells.length; i++) {
        if (isCheck(cells[i])) found.push(cells[i]);
        else if (cells[i].model.type === "code") break;
      }
      return found;
    }

    /** Run the checks after `cell` quietly, in order; the first that fails says so on the status line. */
    async function runChecks(cell) {
      const k = kernel(), checks = checksAfter(cell);
      if (!k || !checks.length) return;
      for (const check of checks) {
        const where = meta(check);
        const reply = await k.requestExecute({ code: check.model.sharedModel.getSource(), silent: true,
          store_history: false, allow_stdin: false, stop_on_error: false }).done;
        const content = reply.content, ok = content.status === "ok";
        const said = ok ? "" : (String(content.evalue || "").split("\n")[0]
          || (content.ename && content.ename !== "AssertionError" ? content.ename : "an assertion failed"));
        live.checks.push({ line: where.line || null, ok, message: said });
        if (!ok) {
          const prefix = content.ename && content.ename !== "AssertionError" ? `${content.ename}: ` : "";
          say(`The claim checked on line ${where.line || "?"} no longer holds here: ${prefix}${said}`,
            { sticky: true, kind: "error" });
          return;
        }
      }
    }

    function kernel() {
      const session = live.panel && live.panel.sessionContext.session;
      return session && session.kernel;
    }

    async function interrupt() {
      const k = kernel();
      if (!k) return say("No kernel to interrupt.", { kind: "error" });
      await k.interrupt();
      say("Interrupted.");
    }

    async function restart() {
      say("Restarting the kernel…", { sticky: true });
      await live.panel.sessionContext.restartKernel();
    }

    /** Re-run, in order and without showing outputs, every code cell before the current slide. */
    async function recover() {
      const k = kernel();
      if (!k || live.busy) return;
      live.busy = true;
      const slide = currentSlide();
      const before = live.panel.content.widgets.filter((c) => c.model.type === "code"
        && !c.model.getMetadata("highlight")
        && !(c.model.getMetadata("tags") || []).includes("raises-exception") && !isCheck(c)
        && !slide.contains(c.node)
        && (c.node.compareDocumentPosition(slide) & Node.DOCUMENT_POSITION_FOLLOWING));
      const started = performance.now();
      try {
        for (const [i, cell] of before.entries()) {
          say(`Re-running cell ${i + 1} of ${before.length}…`, { sticky: true });
          const future = k.requestExecute({ code: cell.model.sharedModel.getSource(), silent: false,
            store_history: false, allow_stdin: false, stop_on_error: true });
          const reply = await future.done;
          if (reply.content.status !== "ok") {
            const where = cell.model.getMetadata("jaxdeck") || {};
            say(`Recovery stopped at the cell on line ${where.line || "?"}: ${reply.content.ename || reply.content.status}: ${reply.content.evalue || ""}`,
              { sticky: true, kind: "error" });
            return;
          }
        }
        say(`Recovered: re-ran ${before.length} code cells in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      } finally {
        live.busy = false;
      }
    }

    function watchKernel(panel) {
      let restarting = false;
      let lost = false;
      live.states = [];
      // the browser's link to the server (an SSH forward, a network): JupyterLab reconnects on its own
      panel.sessionContext.connectionStatusChanged.connect((_, link) => {
        if (link !== "connected" && !lost && panel.sessionContext.session) {
          lost = true;
          say("The link to the server is down: reconnecting… (the kernel keeps its state)", { sticky: true, kind: "error" });
        } else if (link === "connected" && lost) {
          lost = false;
          say("Reconnected to the server: the kernel kept its state.");
        }
      });
      panel.sessionContext.statusChanged.connect((_, state) => {
        live.states.push(state);
        if (state === "autorestarting" || state === "restarting") {
          restarting = state === "autorestarting" ? "started" : true;
          say(state === "autorestarting" ? "The kernel died and is restarting…" : "Restarting the kernel…", { sticky: true, kind: "error" });
          if (lib.Dialog) setTimeout(() => lib.Dialog.flush(), 50);  // no modal box in front of the audience
        } else if (state === "dead") {
          say("The kernel is dead: press 0 0 to start a new one.", { sticky: true, kind: "error" });
        } else if (restarting && (state === "starting" || state === "unknown")) {
          restarting = "started";  // the old kernel is gone: the next idle is the new one's
        } else if (state === "idle" && restarting === "started") {
          restarting = false;
          say("The kernel restarted: earlier results are gone. Press R to re-run the code cells before this slide.",
            { sticky: true, kind: "error" });
        }
      });
    }

    // ---------------------------------------------------------------- keys
    function typing(event) {
      const target = event.target;
      return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    }

    function twice(key) {
      const now = Date.now();
      const hit = live.lastKey === key && now - live.lastKeyAt < DOUBLE_PRESS_MS;
      live.lastKey = hit ? null : key;
      live.lastKeyAt = hit ? 0 : now;
      return hit;
    }

    function onKeyDown(event) {
      if (!live.panel) return;
      if (event.key === "Enter" && event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
        if (!document.querySelector(".reveal .slides").contains(event.target) && event.target !== document.body) return;
        event.preventDefault();
        event.stopImmediatePropagation();
        void runOnSlide();
        return;
      }
      if (typing(event) || event.ctrlKey || event.altKey || event.metaKey) return;
      let handled = true;
      if (event.key === "i" || event.key === "I") { if (twice("i")) void interrupt(); }
      else if (event.key === "0") { if (twice("0")) void restart(); }
      else if (event.key === "r" || event.key === "R") void recover();
      else if (event.key === "s" || event.key === "S") openSpeakerView();  // JupyterLab's keymap eats it otherwise
      else handled = false;
      if (handled) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    }

    function openSpeakerView() {
      const notes = Reveal.getPlugin && Reveal.getPlugin("notes");
      if (notes) notes.open();
    }

    /** The speaker view's slide previews are whole RISE pages that start at the first slide and
     *  report it back as the state to show: the main view would jump there. It navigates the main
     *  view with keys it forwards, so a state pushed from that window is never the presenter's. */
    function fromSpeakerView(event) {
      let data = event.data;
      if (typeof data === "string") { try { data = JSON.parse(data); } catch (_) { return; } }
      if (!data || data.method !== "setState" || event.source === window) return;
      let opener = null;
      try { opener = event.source && event.source.opener; } catch (_) { return; }
      if (opener === window) event.stopImmediatePropagation();
    }

    /** Keys go to reveal.js and to us, not to a cell RISE selected (which would take the arrows). */
    function refocus() {
      const active = document.activeElement;
      if (!active || !active.isContentEditable) live.panel.content.node.focus({ preventScroll: true });
    }

    function onSlideChanged() {
      syncSteps();
      refocus();
      setTimeout(refocus, AUTO_SELECT_MS);
    }

    function onFragment() {
      syncSteps();
      setTimeout(refocus, 0);
      setTimeout(refocus, AUTO_SELECT_MS);
    }

    function start(panel) {
      live.panel = panel;
      live.checks = [];
      watchKernel(panel);
      // every way a cell runs (Shift+Enter here, RISE's buttons, JupyterLab's menus) reaches its checks
      if (NotebookActions.executed) NotebookActions.executed.connect((_, done) => {
        if (done.notebook === panel.content && done.success && !isCheck(done.cell)) void runChecks(done.cell);
      });
      window.addEventListener("keydown", onKeyDown, true);
      window.addEventListener("message", fromSpeakerView, true);
      const ready = () => {
        decorate(panel);
        for (const key of KEYS) Reveal.addKeyBinding(key, () => {});  // listed on the `?` overlay
        Reveal.on("slidechanged", onSlideChanged);
        Reveal.on("fragmentshown", onFragment);
        Reveal.on("fragmenthidden", onFragment);
        onSlideChanged();
        // reveal.js lays out on the window's resize event, before JupyterLab has resized the panel
        // around it: lay out again whenever the slides' own box changes size (the window dragged to
        // the projector, F11, full screen), as the static deck does
        const relayout = () => Reveal.layout();
        // RISE stretches the slides to the window (width and height 100% !important), while reveal.js
        // scales them as if they were the deck's size: in any window larger than the deck the slide is
        // laid out larger than it is drawn and runs off every side. live.css holds them at this size.
        for (const side of ["width", "height"]) {
          const size = String(Reveal.getConfig()[side]);
          if (/^\d+(\.\d+)?(px)?$/.test(size)) {
            document.querySelector(".reveal").style.setProperty(`--jd-slides-${side}`, `${parseFloat(size)}px`);
          }
        }
        new ResizeObserver(relayout).observe(document.querySelector(".reveal"));
        document.addEventListener("fullscreenchange", relayout);
        document.body.classList.add("jd-live-ready");
      };
      if (Reveal.isReady && Reveal.isReady()) ready();
      else Reveal.on("ready", () => setTimeout(ready, 0));
    }

    if (tracker.currentWidget) start(tracker.currentWidget);
    else tracker.widgetAdded.connect((_, panel) => { if (!live.panel) start(panel); });
  }

  return { activate };
})();
