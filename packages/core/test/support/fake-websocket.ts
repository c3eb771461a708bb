/**
 * A stand-in for the browser's `WebSocket` class (the unit project opens no socket): it never opens by
 * itself; a test's subclass decides when it opens and what it answers. Passed as `websocket: () => Class`.
 */
export class FakeWebSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readyState = 0;
  url: string;
  onopen: (() => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  onmessage: ((event: { data: string }) => void) | null = null;
  constructor(url: string) {
    this.url = url;
  }
  send(_data: string): void {}
  close(): void {
    this.readyState = 3;
  }
}
