/* The kernel and the link to the server, watched: what happened to them goes on the status line. */
import { Dialog } from '@jupyterlab/apputils';
import type { NotebookPanel } from '@jupyterlab/notebook';

import type { Live, StatusLine } from './live';

/** What the runner does when a kernel goes and when the next one is up (run.ts). */
export interface KernelEvents {
  going: () => void;
  restarted: () => void;
}

export function watchKernel(panel: NotebookPanel, live: Live, status: StatusLine, events: KernelEvents): void {
  const session = panel.sessionContext;
  // false; true while a restart asked for here is under way; 'started' once the old kernel is gone
  let restarting: boolean | 'started' = false;
  let lost = false;
  live.states = [];
  // the browser's link to the server (an SSH forward, a network): JupyterLab reconnects on its own
  session.connectionStatusChanged.connect((_, link) => {
    if (link !== 'connected' && !lost && session.session) {
      lost = true;
      status.say('The link to the server is down: reconnecting… (the kernel keeps its state)', {
        sticky: true,
        kind: 'error'
      });
    } else if (link === 'connected' && lost) {
      lost = false;
      status.say('Reconnected to the server: the kernel kept its state.');
    }
  });
  session.statusChanged.connect((_, state) => {
    live.states.push(state);
    if (state === 'autorestarting' || state === 'restarting') {
      restarting = state === 'autorestarting' ? 'started' : true;
      events.going();
      status.say(state === 'autorestarting' ? 'The kernel died and is restarting…' : 'Restarting the kernel…', {
        sticky: true,
        kind: 'error'
      });
      window.setTimeout(() => Dialog.flush(), 50); // no modal box in front of the audience
    } else if (state === 'dead') {
      status.say('The kernel is dead: press 0 0 to start a new one.', { sticky: true, kind: 'error' });
    } else if (restarting && (state === 'starting' || state === 'unknown')) {
      restarting = 'started'; // the old kernel is gone: the next idle is the new one's
    } else if (state === 'idle' && restarting === 'started') {
      restarting = false;
      events.restarted(); // runs the setup cells, and says the kernel restarted
    }
  });
}
