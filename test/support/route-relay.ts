import type { BrowserContext } from 'playwright-core';
import WebSocket from 'ws';

/**
 * Answer the browser's WebSocket connections to `from` (e.g. one of the verify page's public default
 * relays, which these machines cannot reach) with the relay process at `to`: every frame is passed on
 * both ways unchanged, and either side closing closes the other. Playwright's `routeWebSocket` can only
 * connect a routed socket to its own URL, so the test runs the other leg here.
 *
 * @example
 * ```ts
 * await routeRelay(chromium.context, 'wss://relay.damus.io', relay.url);
 * ```
 */
export async function routeRelay(context: BrowserContext, from: string, to: string): Promise<void> {
  const matches = (url: URL) => url.href.replace(/\/$/, '') === from.replace(/\/$/, '');
  await context.routeWebSocket(matches, (route) => {
    const upstream = new WebSocket(to);
    const pending: string[] = [];
    upstream.on('open', () => {
      for (const message of pending.splice(0)) upstream.send(message);
    });
    upstream.on('message', (data) => route.send(data.toString()));
    upstream.on('close', () => route.close().catch(() => {}));
    upstream.on('error', () => route.close().catch(() => {}));
    route.onMessage((message) => {
      const text = typeof message === 'string' ? message : message.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else pending.push(text);
    });
    route.onClose(() => upstream.close());
  });
}
