/* Where cells sit among reveal.js's slides, and what the server wrote into their metadata. */
import type { Cell } from '@jupyterlab/cells';
import type { RevealApi } from 'reveal.js';

/** A cell's `jaxdeck` metadata (set by the server from the deck: its line, columns, ...). */
export interface CellInfo {
  line?: number;
  in_columns?: boolean;
  column_start?: boolean;
}

export function info(cell: Cell): CellInfo {
  return (cell.model.getMetadata('jaxdeck') as CellInfo | undefined) ?? {};
}

/** A claim check: a code cell tagged `check`, run quietly after the cell before it, never shown. */
export function isCheck(cell: Cell): boolean {
  return cell.model.type === 'code' && tags(cell).includes('check');
}

function tags(cell: Cell): string[] {
  return (cell.model.getMetadata('tags') as string[] | undefined) ?? [];
}

/** The deck's setup (imports, configuration): a code cell tagged `setup`, run whenever a kernel starts. */
export function isSetup(cell: Cell): boolean {
  return cell.model.type === 'code' && tags(cell).includes('setup') && !isListing(cell);
}

/** Code a kernel runs to reach a later slide: code cells and claim checks, not listings, not cells
 *  that raise on purpose (`raises-exception`). */
export function isPrerequisite(cell: Cell): boolean {
  return cell.model.type === 'code' && !isListing(cell) && !tags(cell).includes('raises-exception');
}

/** A code cell that is a listing with stepped highlights, not code to run. */
export function isListing(cell: Cell): boolean {
  return Boolean(cell.model.getMetadata('highlight'));
}

export function source(cell: Cell): string {
  return cell.model.sharedModel.getSource();
}

/** The innermost section (slide) that holds `node`. */
export function slideOf(node: Element): Element | null {
  return node.closest('section');
}

export function currentSlide(reveal: RevealApi): Element | null {
  return reveal.getCurrentSlide() ?? null;
}

/** The code cells a presenter runs on `slide`, in order (not listings, not checks). */
export function codeCellsOn(cells: readonly Cell[], slide: Element | null): Cell[] {
  return cells.filter(
    cell =>
      cell.model.type === 'code' &&
      slideOf(cell.node) === slide &&
      !isListing(cell) &&
      !isCheck(cell)
  );
}
