import { DEFAULT_RELAYS } from '@siegel/core/browser';
import type { BrowserContext } from 'playwright-core';
import WebSocket from 'ws';

/**
 * Answer the browser's WebSocket connections to each of `from` (e.g. the verify page's public default
 * relays, which these machines cannot reach) with the relay process at `to`: every frame is passed on
 * both ways unchanged, and either side closing closes the other. Playwright's `routeWebSocket` can only
 * connect a routed socket to its own URL, so the test runs the other leg here.
 *
 * @example
 * ```ts
 * await routeRelays(chromium.context, ['wss://relay.damus.io'], relay.url);
 * ```
 */
export async function routeRelays(
  context: BrowserContext,
  from: readonly string[],
  to: string,
): Promise<void> {
  const routed = new Set(from.map((url) => url.replace(/\/$/, '')));
  await context.routeWebSocket(
    (url) => routed.has(url.href.replace(/\/$/, '')),
    (route) => {
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
    },
  );
}

/**
 * The verify page's own relays (core's `DEFAULT_RELAYS`: public relays, unreachable here) answered by the
 * relay process at `to`, as a reader's browser on the internet would have them answered.
 */
export function routeVerifyPageRelays(context: BrowserContext, to: string): Promise<void> {
  return routeRelays(context, DEFAULT_RELAYS, to);
}

/**
 * The verify page's own relays (core's `DEFAULT_RELAYS`) refused at once, as a closed network refuses them:
 * the page's socket closes before it opens, and the query says `cannot connect`, what it says when the name
 * does not resolve. Left to the browser, each page waited up to its 2 s connect timeout instead: after a few
 * failed connections Chromium holds back a tab's new WebSockets (its throttle for failing sockets), so from
 * the third verify page on every page of a test file cost 2–2.5 s more, for the same verdict. A test that
 * answers these relays registers its own route later (`routeVerifyPageRelays`), which takes precedence.
 */
export function refuseVerifyPageRelays(context: BrowserContext): Promise<void> {
  const refused = new Set(DEFAULT_RELAYS.map((url) => url.replace(/\/$/, '')));
  return context.routeWebSocket(
    (url) => refused.has(url.href.replace(/\/$/, '')),
    (route) => route.close().catch(() => {}),
  );
}
