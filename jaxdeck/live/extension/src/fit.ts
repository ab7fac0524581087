/*
 * Blocks taller than a slide, drawn live as the static deck draws them.
 *
 * The build's fit (jaxdeck/html/fit_tall.py) decided, from the laid-out page, how each tall
 * block fits its slide; the server puts that decision in the cell's `jaxdeck.fit` metadata
 * (jaxdeck/live/pieces.py). Here it becomes the same classes and variables the static deck's
 * template writes (themes/jaxdeck/static/fit.css styles both), and again each time a cell's
 * outputs change, since a live run replaces them: the type scale, code beside its outputs,
 * rich outputs zoomed (and cut at the build's height where that was not enough), text outputs cut at a line with "… N more lines" (counted from what
 * the live run printed). An error the build recorded, and an expected error (a cell tagged
 * `raises-exception`) run live, show as `%xmode minimal` shows them, as on the static slide;
 * a surprise in a live run keeps its whole traceback, for the presenter to read.
 */
import type { Cell, CodeCell } from '@jupyterlab/cells';

import { info } from './slides';

/** `metadata.jaxdeck.fit`: what the build's fit did to a block (output numbers as strings). */
export interface Fit {
  scale?: number;
  output_scale?: number;
  beside?: boolean;
  lines?: Record<string, number>;
  zoom?: Record<string, number>;
  clip?: Record<string, number>;
}

/** An error output as nbformat writes it. */
interface ErrorOutput {
  output_type: string;
  ename: string;
  evalue: string;
  traceback: string[];
}

const CUT = '… cut here to fit the slide (all of it in the handout)';
const MORE = (n: number) => `… ${n} more line${n === 1 ? '' : 's'} (all of it in the handout)`;

/** Draw a cell's fit, and draw it again whenever its outputs change. */
export function fitCell(cell: Cell): void {
  applyFit(cell);
  if (cell.model.type !== 'code') {
    return;
  }
  const code = cell as CodeCell;
  minimalErrors(code, true); // the build's outputs: every error as the static slide shows it
  code.model.outputs.changed.connect(() => {
    minimalErrors(code, false); // a live run's: an expected error short, a surprise whole
    // the output area renders on the same change: draw after it
    window.requestAnimationFrame(() => applyFit(cell));
  });
}

function applyFit(cell: Cell): void {
  const fit = (info(cell) as { fit?: Fit }).fit;
  if (!fit) {
    return;
  }
  const scale = fit.scale ?? 1;
  const outputScale = fit.output_scale ?? scale;
  const node = cell.node;
  node.classList.toggle('jd-fit', scale < 1 || outputScale < 1 || Boolean(fit.beside));
  node.classList.toggle('jd-fit-beside', Boolean(fit.beside));
  node.style.setProperty('--jd-fit-scale', String(scale));
  node.style.setProperty('--jd-fit-output-scale', String(outputScale));
  const children = node.querySelectorAll<HTMLElement>('.jp-OutputArea-child');
  children.forEach((child, index) => {
    const zoom = fit.zoom?.[String(index)];
    child.classList.toggle('jd-zoomed', zoom !== undefined && zoom < 1);
    if (zoom !== undefined) {
      child.style.setProperty('--jd-zoom', String(zoom));
    }
    const clip = fit.clip?.[String(index)];
    const rich = child.querySelector<HTMLElement>('.jp-OutputArea-output');
    if (clip !== undefined && rich) {
      // the build's height in slide pixels; the output is zoomed, so in its own pixels it is larger
      rich.style.maxHeight = `${clip / (zoom ?? 1)}px`;
      rich.style.overflow = 'hidden';
      child.querySelectorAll(':scope > .jd-more').forEach(e => e.remove());
      const cut = document.createElement('div');
      cut.className = 'jd-more';
      cut.textContent = CUT;
      child.appendChild(cut);
    }
    const keep = fit.lines?.[String(index)];
    const pre = child.querySelector<HTMLElement>('.jp-RenderedText pre');
    if (keep === undefined || !pre) {
      return;
    }
    pre.parentElement?.querySelectorAll(':scope > .jd-more').forEach(e => e.remove());
    const total = (pre.textContent ?? '').replace(/\n$/, '').split('\n').length;
    if (total <= keep) {
      pre.style.removeProperty('max-height');
      return;
    }
    pre.style.maxHeight = `calc(${keep} * 1lh)`;
    pre.style.overflow = 'hidden';
    const more = document.createElement('div');
    more.className = 'jd-more';
    more.textContent = MORE(total - keep);
    pre.after(more);
  });
}

/** An error's output as `%xmode minimal` shows it: its type and message (unless `all`, only an
 *  expected error's: a cell tagged `raises-exception`). */
function minimalErrors(cell: CodeCell, all: boolean): void {
  const tags = (cell.model.getMetadata('tags') as string[] | undefined) ?? [];
  if (!all && !tags.includes('raises-exception')) {
    return;
  }
  const outputs = cell.model.outputs;
  for (let i = 0; i < outputs.length; i++) {
    const output = outputs.get(i).toJSON() as unknown as ErrorOutput;
    if (output.output_type !== 'error') {
      continue;
    }
    const minimal = output.evalue ? `\u001b[31m${output.ename}\u001b[39m: ${output.evalue}` : output.ename;
    if (output.traceback.length !== 1 || output.traceback[0] !== minimal) {
      outputs.set(i, { ...output, traceback: [minimal] } as unknown as Parameters<typeof outputs.set>[1]);
    }
  }
}
