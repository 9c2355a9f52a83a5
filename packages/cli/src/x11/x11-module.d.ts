// The parts of the `x11` package (pure-JS X11 protocol client, no types of its own) clippy uses.
declare module 'x11' {
  type Callback<T> = (err: Error | undefined | null, result: T) => void;
  export interface XEvent {
    name: string;
    type: number;
    keycode: number;
    buttons: number;
    time: number;
  }
  export interface XClient {
    InternAtom(onlyIfExists: boolean, name: string, cb: Callback<number>): void;
    GetProperty(
      del: number,
      wid: number,
      atom: number,
      type: number,
      offset: number,
      length: number,
      cb: Callback<{ type: number; format: number; bytesAfter: number; data: Buffer }>,
    ): void;
    GetInputFocus(cb: Callback<{ focus: number; revertTo: number }>): void;
    QueryTree(
      wid: number,
      cb: Callback<{ root: number; parent: number; children: number[] }>,
    ): void;
    GetKeyboardMapping(start: number, count: number, cb: Callback<number[][]>): void;
    GrabKey(
      wid: number,
      ownerEvents: boolean,
      modifiers: number,
      keycode: number,
      pointerMode: number,
      keyboardMode: number,
    ): void;
    UngrabKey(wid: number, keycode: number, modifiers: number): void;
    ChangeWindowAttributes(wid: number, values: { eventMask?: number }, cb?: Callback<void>): void;
    on(event: 'event', listener: (ev: XEvent) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'end' | 'close', listener: () => void): this;
    close(cb?: () => void): void;
    terminate(): void;
  }
  export interface XDisplayInfo {
    client: XClient;
    min_keycode: number;
    max_keycode: number;
    screen: Array<{ root: number }>;
  }
  export function createClient(
    options: { display?: string },
    cb: (err: Error | undefined | null, display: XDisplayInfo) => void,
  ): XClient;
  export const eventMask: Record<string, number>;
}
