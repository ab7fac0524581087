/*
 * The presenter's keys, as commands in JupyterLab's registry with key bindings.
 *
 * RISE's application (started without bubblingKeydown) listens for keys on the document in the
 * capture phase, before reveal.js (bubble phase) and before a cell's editor, and Lumino runs the one
 * binding whose selector matches nearest the focused element, the most specific among equals;
 * a binding that runs stops the key there. RISE and JupyterLab bind some of the same keys on
 * this page: Shift Enter (RISE:smart-exec, notebook:run-cell-and-select-next), I I and 0 0
 * (notebook:interrupt-kernel, and notebook:restart-kernel, which asks in a dialog), R
 * (notebook:change-cell-to-raw), M (notebook:change-cell-to-markdown), S (RISE's chalkboard colour),
 * B (notebook:insert-cell-below) and C (notebook:copy-cell), which the chalkboard wants.
 * The selectors below match the focused element itself and are more specific than theirs, so these
 * win on the slides.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { RevealApi } from 'reveal.js';

import type { Live } from './live';
import type { Runner } from './run';
import { openSpeakerView } from './speaker';

/** RISE's slideshow page (its body class) and the notebook it lays out as the deck. */
const DECK = 'body.rise-enabled .lm-Widget.jp-NotebookPanel.reveal .lm-Widget.jp-Notebook.slides';
/** No element has the focus: keys go to <body>. */
const NOTHING_FOCUSED = 'body.rise-enabled:not(:focus-within)';
/** Where a key is the presenter's and not text being typed: on the deck or in a cell (JupyterLab
 *  marks the notebook jp-mod-readWrite while an editor or an input in it has the focus), on the
 *  rest of the page (RISE's buttons) when the focused element takes no text, or nowhere. */
const NOT_TYPING = [
  `${DECK}.jp-mod-commandMode:focus`,
  `${DECK}.jp-mod-commandMode:not(.jp-mod-readWrite) :focus`,
  'body.rise-enabled :focus:not(input):not(textarea):not(select):not([contenteditable])',
  NOTHING_FOCUSED
];
/** Shift Enter runs from anywhere on the slides, an editor clicked into included. */
const ON_SLIDES = [`${DECK}:focus`, `${DECK} :focus`, NOTHING_FOCUSED];

interface PresenterKey {
  command: string;
  keys: string[];
  selectors: string[];
  /** on reveal.js's `?` overlay */
  shown: string;
  description: string;
  execute: () => unknown;
}

/**
 * A presenter's key: `command`, bound to `keys` where `selectors` match (by default wherever the
 * presenter is not typing), listed on reveal.js's `?` overlay as its keys read unless `listed` is
 * false (a plugin that lists the key itself).
 */
function presenterKey(
  command: string,
  keys: string[],
  description: string,
  execute: () => unknown,
  { selectors = NOT_TYPING, listed = true }: { selectors?: string[]; listed?: boolean } = {}
): PresenterKey {
  return { command, keys, selectors, shown: listed ? keys.join(' ') : '', description, execute };
}

function presenterKeys(live: Live, runner: Runner): PresenterKey[] {
  const chalkboard = () => live.reveal.getPlugin('RevealChalkboard');
  const unlisted = { listed: false };
  return [
    presenterKey('jaxdeck-live:interrupt', ['I', 'I'], 'Interrupt the kernel (press I twice)', () =>
      runner.interrupt()
    ),
    presenterKey('jaxdeck-live:restart', ['0', '0'], 'Restart the kernel (press 0 twice)', () => runner.restart()),
    presenterKey('jaxdeck-live:recover', ['R'], 'Recover: re-run the code cells before this slide', () =>
      runner.recover()
    ),
    presenterKey('jaxdeck-live:run', ['Shift Enter'], "Run the slide's next code cell", () => runner.runOnSlide(), {
      selectors: ON_SLIDES
    }),
    // the menu lists M on the overlay itself (tools.ts)
    presenterKey(
      'jaxdeck-live:menu',
      ['M'],
      'Open or close the slide menu',
      () => live.reveal.getPlugin('menu')?.toggle?.(),
      unlisted
    ),
    // reveal.js's notes plugin lists S on the overlay itself
    presenterKey(
      'jaxdeck-live:speaker-view',
      ['S'],
      'Open the speaker view',
      () => openSpeakerView(live.reveal),
      unlisted
    ),
    // the chalkboard lists B and C on the overlay itself (tools.ts)
    presenterKey(
      'jaxdeck-live:chalkboard',
      ['B'],
      'Open or close the chalkboard',
      () => chalkboard()?.toggleChalkboard?.(),
      unlisted
    ),
    presenterKey(
      'jaxdeck-live:draw-on-slide',
      ['C'],
      'Draw on the slide, or stop',
      () => chalkboard()?.toggleNotesCanvas?.(),
      unlisted
    )
  ];
}

/** The presenter's commands and their key bindings in the application's registry. */
export function addKeys(app: JupyterFrontEnd, live: Live, runner: Runner): PresenterKey[] {
  const keys = presenterKeys(live, runner);
  for (const key of keys) {
    app.commands.addCommand(key.command, { label: key.description, execute: key.execute });
    for (const selector of key.selectors) {
      app.commands.addKeyBinding({ command: key.command, keys: key.keys, selector });
    }
  }
  return keys;
}

/**
 * The keys on reveal.js's `?` overlay. reveal.js 4 files a binding under a key code, and would
 * run its callback for that key: each gets a code above any key's (1000 on), so reveal.js lists
 * them and never acts on them; the registry runs them.
 */
export function listOnHelp(reveal: RevealApi, keys: PresenterKey[]): void {
  keys
    .filter(key => key.shown)
    .forEach((key, i) => {
      reveal.addKeyBinding({ keyCode: 1000 + i, key: key.shown, description: key.description }, () => undefined);
    });
}

/** Keys go to the registry and reveal.js, not to a cell RISE selected (which would take the arrows). */
export function keepFocusOnDeck(live: Live): void {
  const active = document.activeElement as HTMLElement | null;
  if (live.panel && (!active || !active.isContentEditable)) {
    live.panel.content.node.focus({ preventScroll: true });
  }
}
