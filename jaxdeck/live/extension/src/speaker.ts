/* reveal.js's speaker view, opened from the registry's S and kept from moving the main view. */
import type { RevealApi } from 'reveal.js';

export function openSpeakerView(reveal: RevealApi): void {
  reveal.getPlugin('notes')?.open?.();
}

/**
 * The speaker view's slide previews are whole RISE pages that start at the first slide and
 * report it back as the state to show: the main view would jump there. It navigates the main
 * view with keys it forwards, so a state pushed from that window is never the presenter's.
 * Listened to on the window, before reveal.js's own listener, which this stops.
 */
export function ignoreSpeakerViewState(): void {
  window.addEventListener(
    'message',
    (event: MessageEvent) => {
      let data = event.data;
      if (typeof data === 'string') {
        try {
          data = JSON.parse(data);
        } catch {
          return;
        }
      }
      if (!data || data.method !== 'setState' || event.source === window) {
        return;
      }
      let opener: unknown = null;
      try {
        opener = (event.source as Window | null)?.opener;
      } catch {
        return;
      }
      if (opener === window) {
        event.stopImmediatePropagation();
      }
    },
    true
  );
}
