/* reveal.js 4 (the version RISE's page shares) ships no types: the part of its API used here. */
declare module 'reveal.js' {
  export interface RevealKeyBinding {
    keyCode: number;
    key: string;
    description: string;
  }

  export interface RevealApi {
    getCurrentSlide(): HTMLElement | undefined;
    getIndices(slide?: HTMLElement): { h: number; v: number; f?: number };
    slide(h: number, v?: number, f?: number): void;
    layout(): void;
    getConfig(): { width?: number | string; height?: number | string; [key: string]: unknown };
    isReady(): boolean;
    on(type: string, listener: (event: Event) => void): void;
    addKeyBinding(binding: RevealKeyBinding, callback: () => void): void;
    getPlugin(id: string): { open?: () => void } | undefined;
  }

  const Reveal: RevealApi;
  export default Reveal;
}
