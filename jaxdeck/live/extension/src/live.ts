/* The state one slideshow page shares between the modules, and its status line. */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { CommandRegistry } from '@lumino/commands';
import type { RevealApi } from 'reveal.js';

/** What a claim check after a cell found. */
export interface CheckResult {
  line: number | null;
  ok: boolean;
  message: string;
}

/** `window.jaxdeckLive`: read by the end-to-end tests and by a curious presenter's console. */
export interface Live {
  panel: NotebookPanel | null;
  /** the page's command registry, which runs the presenter's keys */
  commands: CommandRegistry;
  reveal: RevealApi;
  /** a recovery is running: a second R waits for it */
  busy: boolean;
  checks: CheckResult[];
  /** every kernel status the session went through, in order */
  states: string[];
  /** the cells (model ids) this kernel has been sent; emptied when it restarts */
  ran: Set<string>;
  /** how many times the deck's setup cells ran by themselves, at a kernel's start or restart */
  setups: number;
}

declare global {
  interface Window {
    jaxdeckLive?: Live;
  }
}

export interface SayOptions {
  /** stays until the next message (else it goes after a few seconds) */
  sticky?: boolean;
  kind?: 'info' | 'error';
}

/** One line at the top of the slides (themes/jaxdeck/static/live.css styles `.jd-live-status`). */
export class StatusLine {
  private readonly node: HTMLDivElement;
  private timer = 0;

  constructor() {
    this.node = document.createElement('div');
    this.node.className = 'jd-live-status';
    this.node.setAttribute('role', 'status');
    this.node.hidden = true;
    document.body.appendChild(this.node);
  }

  say(text: string, { sticky = false, kind = 'info' }: SayOptions = {}): void {
    window.clearTimeout(this.timer);
    this.node.textContent = text;
    this.node.dataset.kind = kind;
    this.node.hidden = false;
    if (!sticky) {
      this.timer = window.setTimeout(() => {
        this.node.hidden = true;
      }, 4000);
    }
  }
}
