/* reveal.js 4 (the version RISE's page shares) ships no types: the part of its API used here. */
declare module 'reveal.js' {
  export interface RevealKeyBinding {
    keyCode: number;
    key: string;
    description: string;
  }

  export interface RevealPlugin {
    id: string;
    init?: (reveal: RevealApi) => unknown;
    [key: string]: unknown;
  }

  export interface RevealApi {
    getCurrentSlide(): HTMLElement | undefined;
    getIndices(slide?: HTMLElement): { h: number; v: number; f?: number };
    slide(h: number, v?: number, f?: number): void;
    layout(): void;
    sync(): void;
    getConfig(): { width?: number | string; height?: number | string; [key: string]: unknown };
    isReady(): boolean;
    on(type: string, listener: (event: Event) => void): void;
    addKeyBinding(binding: RevealKeyBinding, callback: () => void): void;
    getPlugin(id: string): {
      open?: () => void; toggle?: () => void; isOpen?: () => boolean;
      toggleChalkboard?: () => void; toggleNotesCanvas?: () => void;
    } | undefined;
    hasPlugin(id: string): boolean;
    registerPlugin(plugin: RevealPlugin): void;
    registerKeyboardShortcut(key: string, description: string): void;
  }

  const Reveal: RevealApi;
  export default Reveal;
}

/* The presenting tools' modules: each a factory of a reveal.js plugin. */
declare module 'reveal.js/plugin/search/search.esm.js' {
  import type { RevealPlugin } from 'reveal.js';
  const plugin: () => RevealPlugin;
  export default plugin;
}

declare module 'reveal.js/plugin/zoom/zoom.esm.js' {
  import type { RevealPlugin } from 'reveal.js';
  const plugin: () => RevealPlugin;
  export default plugin;
}

declare module 'reveal.js-menu/menu.esm.js' {
  import type { RevealPlugin } from 'reveal.js';
  const plugin: () => RevealPlugin;
  export default plugin;
}
