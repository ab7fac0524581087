/* Running code from the slides: the presenter's Shift+Enter, claim checks, interrupt, restart, recover. */
import type { Cell } from '@jupyterlab/cells';
import { NotebookActions } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';

import type { Live, StatusLine } from './live';
import { codeCellsOn, currentSlide, info, isCheck, isListing, slideOf, source } from './slides';

export class Runner {
  constructor(
    private readonly live: Live,
    private readonly status: StatusLine
  ) {}

  kernel(): Kernel.IKernelConnection | null {
    return this.live.panel?.sessionContext.session?.kernel ?? null;
  }

  /**
   * Run the slide's next code cell and stay on the slide: the cell that holds the focus (an
   * editor clicked into), else the selected cell when it is on this slide, else the slide's
   * first; the one after it is selected for the next press.
   */
  async runOnSlide(): Promise<void> {
    const panel = this.live.panel;
    if (!panel) {
      return;
    }
    const notebook = panel.content;
    const slide = currentSlide(this.live.reveal);
    const onSlide = codeCellsOn(notebook.widgets, slide);
    if (!onSlide.length) {
      return;
    }
    const active = document.activeElement;
    let cell = onSlide.find(c => c.node.contains(active));
    if (!cell) {
      cell = notebook.activeCell && onSlide.includes(notebook.activeCell) ? notebook.activeCell : onSlide[0];
    }
    notebook.activeCellIndex = notebook.widgets.indexOf(cell);
    notebook.deselectAll();
    notebook.mode = 'command';
    const next = onSlide[onSlide.indexOf(cell) + 1];
    const ran = NotebookActions.run(notebook, panel.sessionContext);
    if (next) {
      notebook.activeCellIndex = notebook.widgets.indexOf(next);
    }
    notebook.node.focus({ preventScroll: true });
    await ran;
    keepInView(cell);
  }

  /** Run the checks after `cell` quietly, in order; the first that fails says so on the status line. */
  async runChecks(cell: Cell): Promise<void> {
    const kernel = this.kernel();
    const checks = this.checksAfter(cell);
    if (!kernel || !checks.length) {
      return;
    }
    for (const check of checks) {
      const line = info(check).line;
      const reply = await kernel.requestExecute({
        code: source(check),
        silent: true,
        store_history: false,
        allow_stdin: false,
        stop_on_error: false
      }).done;
      const failure = failed(reply);
      const said = failure
        ? String(failure.evalue || '').split('\n')[0] ||
          (failure.ename && failure.ename !== 'AssertionError' ? failure.ename : 'an assertion failed')
        : '';
      this.live.checks.push({ line: line ?? null, ok: !failure, message: said });
      if (failure) {
        const prefix = failure.ename && failure.ename !== 'AssertionError' ? `${failure.ename}: ` : '';
        this.status.say(`The claim checked on line ${line ?? '?'} no longer holds here: ${prefix}${said}`, {
          sticky: true,
          kind: 'error'
        });
        return;
      }
    }
  }

  /** The checks that follow `cell`: up to the next code cell that is not a check. */
  private checksAfter(cell: Cell): Cell[] {
    const cells = this.live.panel?.content.widgets ?? [];
    const found: Cell[] = [];
    for (let i = cells.indexOf(cell) + 1; i < cells.length; i++) {
      if (isCheck(cells[i])) {
        found.push(cells[i]);
      } else if (cells[i].model.type === 'code') {
        break;
      }
    }
    return found;
  }

  async interrupt(): Promise<void> {
    const kernel = this.kernel();
    if (!kernel) {
      this.status.say('No kernel to interrupt.', { kind: 'error' });
      return;
    }
    await kernel.interrupt();
    this.status.say('Interrupted.');
  }

  /** A new kernel at once, with no dialog in front of the audience (the kernel watcher says the rest). */
  async restart(): Promise<void> {
    if (!this.live.panel) {
      return;
    }
    this.status.say('Restarting the kernel…', { sticky: true });
    await this.live.panel.sessionContext.restartKernel();
  }

  /** Re-run, in order and without showing outputs, every code cell before the current slide. */
  async recover(): Promise<void> {
    const kernel = this.kernel();
    const slide = currentSlide(this.live.reveal);
    if (!kernel || !slide || this.live.busy || !this.live.panel) {
      return;
    }
    this.live.busy = true;
    const before = this.live.panel.content.widgets.filter(
      cell =>
        cell.model.type === 'code' &&
        !isListing(cell) &&
        !((cell.model.getMetadata('tags') as string[] | undefined) ?? []).includes('raises-exception') &&
        !isCheck(cell) &&
        !slide.contains(cell.node) &&
        Boolean(cell.node.compareDocumentPosition(slide) & Node.DOCUMENT_POSITION_FOLLOWING)
    );
    const started = performance.now();
    try {
      for (const [i, cell] of before.entries()) {
        this.status.say(`Re-running cell ${i + 1} of ${before.length}…`, { sticky: true });
        const reply = await kernel.requestExecute({
          code: source(cell),
          silent: false,
          store_history: false,
          allow_stdin: false,
          stop_on_error: true
        }).done;
        if (reply.content.status !== 'ok') {
          const failure = failed(reply);
          this.status.say(
            `Recovery stopped at the cell on line ${info(cell).line ?? '?'}: ` +
              `${failure?.ename || reply.content.status}: ${failure?.evalue || ''}`,
            { sticky: true, kind: 'error' }
          );
          return;
        }
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      this.status.say(`Recovered: re-ran ${before.length} code cells in ${seconds} s.`);
    } finally {
      this.live.busy = false;
    }
  }
}

/** The error an execute reply carries, or null when the code ran. */
function failed(reply: KernelMessage.IExecuteReplyMsg): { ename?: string; evalue?: string } | null {
  const content = reply.content;
  if (content.status === 'ok') {
    return null;
  }
  return content.status === 'error' ? { ename: content.ename, evalue: content.evalue } : {};
}

/** After a run, the cell's output in view, if its slide is still the one shown. */
function keepInView(cell: Cell): void {
  const slide = slideOf(cell.node);
  if (!slide || !slide.classList.contains('present')) {
    return;
  }
  const outputs = cell.node.querySelector('.jp-OutputArea') ?? cell.node;
  outputs.scrollIntoView({ block: 'nearest' });
}
