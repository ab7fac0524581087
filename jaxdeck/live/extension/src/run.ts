/*
 * Running code from the slides: the presenter's Shift+Enter, claim checks, interrupt, restart, recover.
 *
 * No slide depends on the presenter's memory: the deck's setup cells (tagged `setup`) run by
 * themselves whenever a kernel starts or restarts, and Shift+Enter first runs, quietly, the
 * earlier code cells (claim checks included, listings and `raises-exception` cells not) that this
 * kernel has not run, so any slide can be run first. Which cells ran is kept per kernel: a
 * restart forgets it.
 */
import type { Cell, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookActions } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';

import type { Live, StatusLine } from './live';
import { codeCellsOn, currentSlide, info, isCheck, isListing, isPrerequisite, isSetup, slideOf, source } from './slides';

export class Runner {
  /** The cells this kernel has been sent (model ids), by any way of running them; a restart empties it. */
  private readonly ran = new Set<string>();
  /** The quiet runs under way (the setup, earlier cells): a press waits for them, in order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly live: Live,
    private readonly status: StatusLine
  ) {
    live.ran = this.ran;
  }

  /** `cell` was sent to this kernel (Shift+Enter, RISE's buttons, JupyterLab's menus, a quiet run). */
  sent(cell: Cell): void {
    this.ran.add(cell.model.id);
  }

  /** The kernel is going (restart, death): nothing has run in the next one. */
  forget(): void {
    this.ran.clear();
  }

  /** A kernel has started (or restarted): its setup cells run by themselves, saying so meanwhile. */
  kernelStarted(restarted: boolean): Promise<unknown> {
    this.forget();
    this.queue = this.queue.then(() => this.runSetup(restarted)).catch(err => this.lost(err));
    return this.queue;
  }

  private async runSetup(restarted: boolean): Promise<void> {
    const cells = (this.live.panel?.content.widgets ?? []).filter(isSetup);
    const after = 'earlier results are gone: Shift+Enter runs what a slide needs first, R re-runs every cell before this slide.';
    if (!cells.length) {
      if (restarted) {
        this.status.say(`The kernel restarted: ${after}`, { sticky: true, kind: 'error' });
      }
      return;
    }
    const what = cells.length === 1 ? 'the setup cell' : `the ${cells.length} setup cells`;
    this.status.say(restarted ? `The kernel restarted: running ${what}…` : `Running ${what}…`, { sticky: true });
    const started = performance.now();
    const ok = await this.quietly(cells, 'setup');
    this.live.setups += ok ? 1 : 0;
    if (!ok) {
      return; // the failure is on the status line and under the cell
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (restarted) {
      this.status.say(`The kernel restarted and ran ${what} again (${seconds} s); ${after}`, { sticky: true, kind: 'error' });
    } else {
      this.status.say(`Ran ${what} (${seconds} s): the kernel is ready.`);
    }
  }

  /**
   * Run `cells` in order without showing their outputs (a cell's shown outputs stay as they were),
   * each marked as run. A claim check that fails says so on the status line and the rest go on; any
   * other cell that fails shows its error under it and on the status line, and stops the run: false.
   */
  private async quietly(cells: Cell[], why: 'setup' | 'earlier'): Promise<boolean> {
    const kernel = this.kernel();
    if (!kernel) {
      return false;
    }
    for (const cell of cells) {
      const reply = await this.runSilently(kernel, cell);
      const failure = failed(reply);
      if (isCheck(cell)) {
        this.checked(cell, failure);
        continue;
      }
      if (failure) {
        const content = reply.content as { traceback?: string[] };
        const outputs = (cell.model as ICodeCellModel).outputs;
        outputs.clear();
        outputs.add({ output_type: 'error', ename: failure.ename ?? '', evalue: failure.evalue ?? '', traceback: content.traceback ?? [] });
        const which = why === 'setup' ? 'The setup cell' : 'An earlier cell, run first,';
        this.status.say(
          `${which} on line ${info(cell).line ?? '?'} failed: ${failure.ename || reply.content.status}: ${failure.evalue || ''}`,
          { sticky: true, kind: 'error' }
        );
        return false;
      }
    }
    return true;
  }

  /** Send `cell` to `kernel` with no output shown and no history kept, marked as run; its reply. */
  private runSilently(kernel: Kernel.IKernelConnection, cell: Cell): Promise<KernelMessage.IExecuteReplyMsg> {
    this.sent(cell);
    return kernel.requestExecute({
      code: source(cell),
      silent: true,
      store_history: false,
      allow_stdin: false,
      stop_on_error: false
    }).done;
  }

  /** The code cells before `cell` that this kernel has not run, in order. */
  private notRunBefore(cell: Cell): Cell[] {
    const cells = this.live.panel?.content.widgets ?? [];
    return cells.slice(0, Math.max(0, cells.indexOf(cell))).filter(c => isPrerequisite(c) && !this.ran.has(c.model.id));
  }

  kernel(): Kernel.IKernelConnection | null {
    return this.live.panel?.sessionContext.session?.kernel ?? null;
  }

  /**
   * Run the slide's next code cell and stay on the slide: the cell that holds the focus (an
   * editor clicked into), else the selected cell when it is on this slide, else the slide's
   * first; the one after it is selected for the next press. A setup cell this kernel has run
   * (by itself, at its start) is passed over unless its editor is clicked into: RISE selects and
   * focuses a slide's first cell, and a press that re-ran the setup would show nothing new.
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
      // said, so that a press that runs nothing is not taken for a kernel that does not answer
      this.status.say('No code to run on this slide.');
      return;
    }
    const active = document.activeElement;
    const setUp = (c: Cell) => isSetup(c) && this.ran.has(c.model.id);
    // RISE focuses the cell it selects: a set-up cell counts as chosen only when its editor is clicked into
    let cell = onSlide.find(c => c.node.contains(active) && (!setUp(c) || Boolean(c.editor?.hasFocus())));
    if (!cell) {
      const selected = notebook.activeCell && onSlide.includes(notebook.activeCell) ? notebook.activeCell : onSlide[0];
      cell = onSlide.slice(onSlide.indexOf(selected)).find(c => !setUp(c)) ?? selected;
    }
    notebook.activeCellIndex = notebook.widgets.indexOf(cell);
    notebook.deselectAll();
    notebook.mode = 'command';
    const next = onSlide[onSlide.indexOf(cell) + 1];
    if (next) {
      notebook.activeCellIndex = notebook.widgets.indexOf(next);
    }
    notebook.node.focus({ preventScroll: true });
    // after the setup and any earlier press's quiet runs: the earlier cells this kernel lacks
    const earlierRan = this.queue.then(() => this.runEarlier(cell));
    this.queue = earlierRan.catch(() => false);
    if (!(await earlierRan.catch(err => this.lost(err)))) {
      return; // one failed: its error is under it and on the status line
    }
    this.sent(cell);
    if (await NotebookActions.runCells(notebook, [cell], panel.sessionContext)) {
      keepInView(cell);
    }
  }

  /** A quiet run cut short (the kernel went, its requests with it): said, and nothing more runs. */
  private lost(err: unknown): false {
    this.status.say(`Stopped running cells quietly: ${err instanceof Error ? err.message : String(err)}`, {
      sticky: true,
      kind: 'error'
    });
    return false;
  }

  /** Quietly run the code cells before `cell` that this kernel has not run, saying so; false when one failed. */
  private async runEarlier(cell: Cell): Promise<boolean> {
    const earlier = this.notRunBefore(cell);
    if (!earlier.length) {
      return true;
    }
    const what = earlier.length === 1 ? '1 earlier cell' : `${earlier.length} earlier cells`;
    this.status.say(`Running ${what} first…`, { sticky: true });
    const started = performance.now();
    if (!(await this.quietly(earlier, 'earlier'))) {
      return false;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    this.status.say(`Ran ${what} first (${seconds} s).`);
    return true;
  }

  /** Run the checks after `cell` quietly, in order; the first that fails says so on the status line. */
  async runChecks(cell: Cell): Promise<void> {
    const kernel = this.kernel();
    const checks = this.checksAfter(cell);
    if (!kernel || !checks.length) {
      return;
    }
    for (const check of checks) {
      const reply = await this.runSilently(kernel, check);
      if (!this.checked(check, failed(reply))) {
        return;
      }
    }
  }

  /** Record a check's result; one that failed says so on the status line. True when it held. */
  private checked(check: Cell, failure: { ename?: string; evalue?: string } | null): boolean {
    const line = info(check).line;
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
    }
    return !failure;
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
        this.sent(cell);
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
