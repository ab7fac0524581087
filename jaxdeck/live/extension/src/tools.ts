/*
 * The static deck's presenting tools on the live slideshow, registered on RISE's reveal.js 4:
 * search and zoom from the reveal.js 4 package this page shares, the slide menu from
 * reveal.js-menu. The chalkboard is RISE's own (its `enable_chalkboard`, which the server sets in
 * the notebook's `rise` metadata), and so is Font Awesome, which the menu's icons use.
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

/** The ids reveal.js knows the tools by (`Reveal.hasPlugin`). */
export const TOOLS = ['search', 'zoom', 'menu'];

/** Search, zoom and the menu on the live deck (once: a second call finds them registered). */
export function addTools(reveal: RevealApi): void {
  const config = reveal.getConfig();
  config.menu = {
    path: NO_SHEET, loadIcons: false, themes: false, transitions: false, numbers: true,
    titleSelector: 'h1, h2, h3', useTextContentForMissingTitles: true,
    openButton: false, openSlideNumber: true,   // no corner button over a slide's last line, as in the static deck
    ...(config.menu as object | undefined)
  };
  const plugins: RevealPlugin[] = [RevealSearch(), RevealZoom(), RevealMenu()];
  for (const plugin of plugins) {
    if (!reveal.hasPlugin(plugin.id)) {
      reveal.registerPlugin(plugin);
    }
  }
  reveal.registerKeyboardShortcut('Alt + click', 'Zoom in or out');
}
