/*
 * The static deck's presenting tools on the live slideshow, registered on RISE's reveal.js 4:
 * search and zoom from the reveal.js 4 package this page shares, the slide menu from
 * reveal.js-menu, and the chalkboard the static deck loads, from the server's static files (its
 * script finds its pictures beside itself; RISE's own bundles it away from them, and stays off).
 * Font Awesome, which the menu's and the chalkboard's icons use, is RISE's.
 */
import type { RevealApi, RevealPlugin } from 'reveal.js';
import RevealSearch from 'reveal.js/plugin/search/search.esm.js';
import RevealZoom from 'reveal.js/plugin/zoom/zoom.esm.js';
import RevealMenu from 'reveal.js-menu/menu.esm.js';
import 'reveal.js-menu/menu.css';

/**
 * The menu's stylesheet is bundled above, yet the menu loads `PATH + "menu.css"` itself and starts
 * once that loads: given this path it loads an empty sheet (a `data:` URL, an unclosed comment),
 * with no request to any server.
 */
const NO_SHEET = 'data:text/css,/*';

/** Where the server put the chalkboard for this deck (`metadata.jaxdeck_live.tools.chalkboard`):
 *  its script's URL, relative to the page, and where drawings are kept while the tab lives. */
export interface ChalkboardPlace {
  script: string;
  storage: string;
}

/** Load a script the classic way, so that it knows its own URL (`document.currentScript`). */
function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(script);
  });
}

/**
 * The chalkboard on the live deck: B for the board, C to draw on the slide, as in the static
 * deck (keys.ts binds both ahead of JupyterLab's cell keys). Its colour keys (X, Y) and download
 * (D) would fight JupyterLab's cut, to-code and delete-cell keys here, so they stay off; its
 * colour buttons remain.
 */
export async function addChalkboard(reveal: RevealApi, place: ChalkboardPlace): Promise<void> {
  if (reveal.hasPlugin('RevealChalkboard')) {
    return;
  }
  const sheet = document.createElement('link');
  sheet.rel = 'stylesheet';
  sheet.href = place.script.replace(/plugin\.js$/, 'style.css');
  document.head.appendChild(sheet);
  const global = window as unknown as { RevealChalkboard?: RevealPlugin };
  if (!global.RevealChalkboard) {
    await loadScript(place.script);
  }
  const config = reveal.getConfig();
  // the plugin reads its drawings back from the tab's storage and warns when there are none yet
  // ("Cannot initialise storage!"): a first visit starts from the empty drawings it would make
  if (sessionStorage.getItem(place.storage) === null) {
    const empty = { width: config.width, height: config.height, data: [] };
    sessionStorage.setItem(place.storage, JSON.stringify([empty, empty]));
  }
  config.chalkboard = {
    theme: 'chalkboard', storage: place.storage,
    keyBindings: { colorNext: false, colorPrev: false, download: false },
    ...(config.chalkboard as object | undefined)
  };
  if (global.RevealChalkboard && !reveal.hasPlugin('RevealChalkboard')) {
    reveal.registerPlugin(global.RevealChalkboard);
    reveal.registerKeyboardShortcut('B  ,  .', 'Pause (.; B is the chalkboard)');  // reveal.js's own row, as in the static deck
  }
}

/** `text` as HTML that shows it as written (reveal.js-menu reads a slide's `data-menu-title` as HTML). */
function asHtml(text: string): string {
  const holder = document.createElement('span');
  holder.textContent = text;
  return holder.innerHTML;
}

/** What `node` shows as text, on one line (less JupyterLab's ¶ links beside headings). */
function shownText(node: Element): string {
  const copy = node.cloneNode(true) as Element;
  copy.querySelectorAll('.jp-InternalAnchorLink').forEach(link => link.remove());
  return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * A slide's title in the menu, as the static deck's build makes it (jaxdeck/html/menu.py): the first
 * heading (#, ##, ###) of the slide's own Markdown, else its first words, else "Slide N"; never an
 * output's text, never its notes.
 */
function slideTitle(slide: Element, number: number): string {
  const markdown = [...slide.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')]
    .filter(rendered => !rendered.closest('aside.notes, .jd-notes-cells'));
  for (const rendered of markdown) {
    const heading = rendered.querySelector('h1, h2, h3');
    if (heading && shownText(heading)) {
      return shownText(heading);
    }
  }
  for (const rendered of markdown) {
    const words = shownText(rendered);
    if (words) {
      const start = /^.{16}\S*/.exec(words)?.[0];
      return start && start !== words ? `${start}…` : words;
    }
  }
  return `Slide ${number}`;
}

/**
 * Every slide's title for the menu, as text: the menu puts `data-menu-title` into the page as HTML
 * (and a heading's text too, were it left to find one), so a heading that shows markup as text
 * (`<img onerror=…>` in inline code) would run. The title goes in escaped, and shows as written.
 */
function titleSlides(): void {
  const slides = [...document.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section'));
  slides.forEach((slide, index) => slide.setAttribute('data-menu-title', asHtml(slideTitle(slide, index + 1))));
}

/** Search, zoom and the menu on the live deck (once: a second call finds them registered). */
export function addTools(reveal: RevealApi): void {
  const config = reveal.getConfig();
  config.menu = {
    path: NO_SHEET, loadIcons: false, themes: false, transitions: false, numbers: true,
    useTextContentForMissingTitles: true,
    openButton: false, openSlideNumber: true,   // no corner button over a slide's last line, as in the static deck
    ...(config.menu as object | undefined),
    titleSelector: ''   // the titles are the data-menu-title attributes titleSlides() writes
  };
  if (!reveal.hasPlugin('menu')) {
    titleSlides();
  }
  const plugins: RevealPlugin[] = [RevealSearch(), RevealZoom(), RevealMenu()];
  for (const plugin of plugins) {
    if (!reveal.hasPlugin(plugin.id)) {
      reveal.registerPlugin(plugin);
    }
  }
  reveal.registerKeyboardShortcut('Alt + click', 'Zoom in or out');
  reveal.registerKeyboardShortcut('Click the slide number', 'Open the menu');  // the menu's only pointer way in
}
