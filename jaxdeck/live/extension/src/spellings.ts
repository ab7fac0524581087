/* The deck spellings on RISE's slides: a heading's `{.smaller background-color="#123"}` on its slide. */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { RevealApi } from 'reveal.js';

/** A slide's attributes, as the server read them from its heading (jaxdeck/live/spellings_view.py). */
interface Section {
  classes?: string[];
  data?: Record<string, string>;
}

/**
 * Each cell's `section` (classes and reveal.js data-* attributes) onto the slide that holds it,
 * then reveal.js re-reads the slides: their backgrounds, and the fragments (an incremental list's
 * items, `{.fragment}` blocks and spans) the served HTML carries.
 */
export function applySpellings(panel: NotebookPanel, reveal: RevealApi): void {
  for (const cell of panel.content.widgets) {
    const section = ((cell.model.getMetadata('jaxdeck') as { section?: Section } | undefined) ?? {}).section;
    const slide = cell.node.closest('section');
    if (!section || !slide) {
      continue;
    }
    slide.classList.add(...(section.classes ?? []));
    for (const [key, value] of Object.entries(section.data ?? {})) {
      slide.setAttribute(`data-${key}`, value);
    }
  }
  reveal.sync();
}
