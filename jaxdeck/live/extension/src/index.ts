/*
 * jaxdeck-live: the deck's look and the presenter's keys in RISE's slideshow page.
 *
 * RISE lays the notebook's cells out as reveal.js sections; this adds what the static deck has
 * and a live talk needs:
 *   - the title slide's byline and provenance, columns side by side, notes rendered once,
 *     empty marker cells hidden, stepped code-line highlights (layout.ts);
 *   - Shift+Enter runs the current slide's code from the first press and stays on the slide, after
 *     the earlier code cells this kernel has not run (quietly), and on a slide without code says
 *     so on the status line; the setup cells run by themselves
 *     whenever a kernel starts or restarts (run.ts);
 *     I I interrupts, 0 0 restarts, R re-runs every code cell before the current slide (quietly,
 *     in order) after the kernel died or was restarted, S opens the speaker view (keys.ts, run.ts);
 *   - claim checks (code cells tagged `check`, never shown) run quietly right after the cell
 *     before them; one that fails says so on the status line, never with a traceback (run.ts);
 *   - a one-line status for a dead, restarted or unreachable kernel (kernel.ts);
 *   - the static deck's search, zoom, slide menu and chalkboard (tools.ts; M opens the menu, B the
 *     chalkboard, C draws on the slide: keys.ts);
 *   - a heading's slide attributes (`{.smaller}`, backgrounds) on its slide (spellings.ts).
 *   - the deck's Markdown shown as written, raw HTML included, as the static deck shows it; outputs
 *     trusted only when the presenter's build signed them (markdown.ts).
 * Everything it reads comes from the notebook the server sends: cell metadata `jaxdeck` (slide
 * structure) and notebook metadata `jaxdeck_live` (title markup). Its CSS is served by the server
 * with the deck's theme (jaxdeck/live/contents.py, themes/jaxdeck/static/live.css).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookActions, type NotebookPanel } from '@jupyterlab/notebook';

import './console';
import { watchKernel } from './kernel';
import { decorate, followSize, keepToolbarOut, syncSteps } from './layout';
import { type Live, StatusLine } from './live';
import { addKeys, keepFocusOnDeck, listOnHelp } from './keys';
import { Runner } from './run';
import { addChalkboard, addTools, type ChalkboardPlace } from './tools';
import { showDeckMarkdownAsWritten } from './markdown';
import { isCheck } from './slides';
import { applySpellings } from './spellings';
import { ignoreSpeakerViewState } from './speaker';

/** RISE selects the slide's first code cell 450 ms after a move: focus is taken back after it. */
const AUTO_SELECT_MS = 500;

async function activate(app: JupyterFrontEnd, tracker: INotebookTracker): Promise<void> {
  if (app.name !== 'Rise') {
    return; // the same extension loads in JupyterLab: nothing to do there
  }
  // before RISE opens the deck (after every plugin has started): its Markdown cells render as written
  showDeckMarkdownAsWritten(app);
  // only RISE's page shares reveal.js (JupyterLab's has none): asked for here, not when the module loads
  const Reveal = (await import('reveal.js')).default;
  const live: Live = { panel: null, commands: app.commands, reveal: Reveal, busy: false, checks: [], states: [], ran: new Set(), setups: 0 };
  window.jaxdeckLive = live;
  const status = new StatusLine();
  const runner = new Runner(live, status);

  const start = (panel: NotebookPanel) => {
    live.panel = panel;
    live.checks = [];
    watchKernel(panel, live, status, { going: () => runner.forget(), restarted: () => void runner.kernelStarted(true) });
    // the kernel this page found or started: its setup runs now (a kernel another page left running
    // runs it again, which a deck's imports and configuration bear)
    void panel.sessionContext.ready.then(() => {
      if (panel.sessionContext.session?.kernel) {
        void runner.kernelStarted(false);
      }
    });
    NotebookActions.executionScheduled.connect((_, { notebook, cell }) => {
      if (notebook === panel.content) {
        runner.sent(cell);
      }
    });
    // every way a cell runs (Shift+Enter here, RISE's buttons, JupyterLab's menus) reaches its checks
    NotebookActions.executed.connect((_, done) => {
      if (done.notebook === panel.content && done.success && !isCheck(done.cell)) {
        void runner.runChecks(done.cell);
      }
    });
    const keys = addKeys(app, live, runner);
    ignoreSpeakerViewState();
    const onSlideChanged = () => {
      syncSteps();
      keepFocusOnDeck(live);
      window.setTimeout(() => keepFocusOnDeck(live), AUTO_SELECT_MS);
    };
    const onFragment = () => {
      syncSteps();
      window.setTimeout(() => keepFocusOnDeck(live), 0);
      window.setTimeout(() => keepFocusOnDeck(live), AUTO_SELECT_MS);
    };
    const ready = () => {
      decorate(panel);
      applySpellings(panel, Reveal);
      const tools = (panel.model?.getMetadata('jaxdeck_live') as { tools?: { chalkboard: ChalkboardPlace } } | undefined)?.tools;
      if (tools) {  // none when the deck's header says `tools: false`
        addTools(Reveal);
        addChalkboard(Reveal, tools.chalkboard).catch(err => status.say(String(err), { kind: 'error' }));
      }
      listOnHelp(Reveal, keys);
      Reveal.on('slidechanged', onSlideChanged);
      Reveal.on('fragmentshown', onFragment);
      Reveal.on('fragmenthidden', onFragment);
      onSlideChanged();
      followSize(Reveal);
      document.body.classList.add('jd-live-ready');
    };
    if (Reveal.isReady()) {
      ready();
    } else {
      Reveal.on('ready', () => window.setTimeout(ready, 0));
    }
  };

  if (tracker.currentWidget) {
    start(tracker.currentWidget);
  } else {
    tracker.widgetAdded.connect((_, panel) => {
      keepToolbarOut(panel);
      if (!live.panel) {
        start(panel);
      }
    });
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jaxdeck-live:slideshow',
  description: "The deck's look and the presenter's keys in RISE's slideshow.",
  autoStart: true,
  requires: [INotebookTracker],
  activate
};

export default plugin;
