/* The static deck's look on RISE's slides: columns, notes, the title's byline, stepped highlights. */
import type { Cell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { RevealApi } from 'reveal.js';

import { fitCell } from './fit';
import { info, isListing } from './slides';

/** Lay the notebook's cells out as the static deck has them (once, when reveal.js is ready). */
export function decorate(panel: NotebookPanel): void {
  const cells = panel.content.widgets;
  for (const cell of cells) {
    const where = info(cell);
    if (cell.model.type === 'markdown' && !cell.model.sharedModel.getSource().trim()) {
      cell.node.classList.add('jd-empty'); // a marker cell: nothing to show
    }
    if (isListing(cell)) {
      cell.node.classList.add('jd-listing');
    }
    if (where.in_columns) {
      cell.node.dataset.jdColumn = where.column_start ? 'start' : 'in';
    }
    fitCell(cell);
  }
  for (const section of document.querySelectorAll('.reveal .slides section')) {
    layoutColumns(section);
  }
  renderNotes();
  titleSlide(panel);
  for (const cell of cells) {
    if (isListing(cell)) {
      steps(cell);
    }
  }
}

/** Cells after a `|||` marker go into side-by-side columns, as in the static deck. */
function layoutColumns(section: Element): void {
  const children = [...section.children].filter(child => child.tagName !== 'SECTION');
  let row: HTMLElement | null = null;
  let column: HTMLElement | null = null;
  for (const child of children) {
    const marked = child.matches('[data-jd-column]')
      ? (child as HTMLElement)
      : child.querySelector<HTMLElement>('[data-jd-column]');
    if (!marked) {
      column = null;
      continue;
    }
    if (marked.dataset.jdColumn === 'start' || !column) {
      if (!row) {
        row = document.createElement('div');
        row.className = 'jd-columns';
        section.insertBefore(row, child);
      }
      column = document.createElement('div');
      column.className = 'jd-column';
      row.appendChild(column);
    }
    column.appendChild(child);
  }
}

/** reveal.js reads `aside.notes` as HTML: give it the rendered notes only, once per cell. */
export function renderNotes(): void {
  for (const aside of document.querySelectorAll<HTMLElement>('.reveal aside.notes')) {
    if (aside.dataset.jdNotes) {
      continue;
    }
    const rendered = aside.querySelector('.jp-RenderedMarkdown');
    if (!rendered) {
      continue;
    }
    // the cells stay in the page (JupyterLab owns them), hidden beside the notes
    const holder = document.createElement('div');
    holder.className = 'jd-notes-cells';
    holder.hidden = true;
    while (aside.firstChild) {
      holder.appendChild(aside.firstChild);
    }
    aside.innerHTML = rendered.innerHTML;
    aside.dataset.jdNotes = '1';
    aside.after(holder);
  }
}

/** The title slide's byline and provenance, which the notebook's first cell does not hold. */
function titleSlide(panel: NotebookPanel): void {
  const live = (panel.model?.getMetadata('jaxdeck_live') as { title_html?: string } | undefined) ?? {};
  // the first cell on a slide: a removed cell before it (RISE skips it) holds no title
  const first = panel.content.widgets.find(cell => {
    const kind = (cell.model.getMetadata('slideshow') as { slide_type?: string } | undefined)?.slide_type;
    return kind !== 'skip' && kind !== 'notes';
  });
  if (!live.title_html || !first || document.querySelector('.jd-title-extra')) {
    return;
  }
  const extra = document.createElement('div');
  extra.className = 'jd-title-extra';
  extra.innerHTML = live.title_html; // built and escaped by the server (jaxdeck.layout)
  first.node.after(extra);
}

/** A listing with `highlight="1|2-3"`: one fragment per step, lines dimmed by CSS. */
function steps(cell: Cell): void {
  const spec = String(cell.model.getMetadata('highlight'));
  const groups = spec.split('|').map(group => {
    const lines = new Set<number>();
    for (const part of group.split(',')) {
      const [a, b] = part.split('-').map(x => parseInt(x, 10));
      if (!Number.isFinite(a)) {
        continue;
      }
      for (let n = a; n <= (Number.isFinite(b) ? b : a); n++) {
        lines.add(n);
      }
    }
    return [...lines];
  });
  const id = `jd-steps-${Math.random().toString(36).slice(2, 9)}`;
  cell.node.id = id;
  const style = document.createElement('style');
  style.textContent = groups
    .map((lines, k) => {
      const keep = lines.map(n => `:not(:nth-child(${n}))`).join('');
      return `#${id}[data-jd-step="${k}"] .cm-content > .cm-line${keep} { opacity: 0.3; }`;
    })
    .join('\n');
  document.head.appendChild(style);
  cell.node.dataset.jdStep = '0';
  let anchor: Element = cell.node;
  for (let k = 1; k < groups.length; k++) {
    // one fragment per further step, in order
    const marker = document.createElement('span');
    marker.className = 'fragment jd-step';
    marker.dataset.jdStep = String(k);
    marker.dataset.jdFor = id;
    anchor.after(marker);
    anchor = marker;
  }
}

/** Each listing shows the step of its last visible fragment. */
export function syncSteps(): void {
  for (const listing of document.querySelectorAll<HTMLElement>('.jd-listing[id]')) {
    const shown = document.querySelectorAll<HTMLElement>(`.jd-step.visible[data-jd-for="${listing.id}"]`);
    const step = Math.max(0, ...[...shown].map(marker => parseInt(marker.dataset.jdStep ?? '0', 10)));
    listing.dataset.jdStep = String(step);
  }
}

/**
 * RISE stretches the slides to the window (width and height 100% !important), while reveal.js
 * scales them as if they were the deck's size: in any window larger than the deck the slide is
 * laid out larger than it is drawn and runs off every side. live.css holds them at this size.
 */
function holdDeckSize(reveal: RevealApi, box: HTMLElement): void {
  const config = reveal.getConfig();
  for (const side of ['width', 'height'] as const) {
    const size = String(config[side]);
    if (/^\d+(\.\d+)?(px)?$/.test(size)) {
      box.style.setProperty(`--jd-slides-${side}`, `${parseFloat(size)}px`);
    }
  }
}

/**
 * reveal.js lays out on the window's resize event, before JupyterLab has resized the panel
 * around it: lay out again whenever the slides' own box changes size (the window dragged to
 * the projector, F11, full screen), as the static deck does.
 */
export function followSize(reveal: RevealApi): void {
  const relayout = () => reveal.layout();
  const box = document.querySelector<HTMLElement>('.reveal');
  if (box) {
    holdDeckSize(reveal, box);
    new ResizeObserver(relayout).observe(box);
  }
  document.addEventListener('fullscreenchange', relayout);
}

/**
 * RISE hides the notebook's toolbar on its page but leaves it in the DOM. Attached there, its
 * <jp-toolbar> element (@jupyter/web-components) derives its colour design token from its
 * parent's, and @microsoft/fast-foundation 2.50.0, which RISE's bundle carries, re-enters that
 * derivation without end when the parent's token node is created after the toolbar's buttons'
 * (microsoft/fast#7057): each load logged 7 to 39 "RangeError: Maximum call stack size
 * exceeded" from fast-foundation's DesignTokenBindingObserver.handleChange. A toolbar taken out
 * of the panel before RISE attaches it is never connected, and nobody sees it anyway.
 */
export function keepToolbarOut(panel: NotebookPanel): void {
  if (!panel.isAttached) {
    panel.toolbar.parent = null;
  }
}
