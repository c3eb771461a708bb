// Looking events up on relays from Node (`siegel verify`): relay-query-portable.ts on `ws` capped at 2 MiB
// per message (relay-socket.ts), so a relay's oversized message closes its connection (1009) instead of
// filling memory, and the answer says so. The browser verify script imports relay-query-portable.ts itself.
import type { ConnectPolicy } from '../net/connect-policy.js';
import * as portable from './relay-query-portable.js';
import { createRelaySocket, describeTooLarge } from './relay-socket.js';

export {
  describeRelayMiss,
  RELAY_QUERY_DEFAULTS,
  type RelayAnswer,
  type RelayLookup,
  type RelayQueryOptions,
} from './relay-query-portable.js';

/** Options of a query from Node: the portable ones and which addresses a relay may be on. */
export interface NodeRelayQueryOptions extends portable.RelayQueryOptions {
  /** Which addresses a relay may be connected at (net/connect-policy.ts; default: any). */
  policy?: ConnectPolicy;
}

/** The options with `ws` as the WebSocket (unless the caller chose one), and the relays it cut off or refused. */
function onCappedSockets({ policy, ...options }: NodeRelayQueryOptions) {
  const tooLarge = new Set<string>();
  const refused = new Map<string, string>();
  const websocket = (relay: string) =>
    createRelaySocket({
      onTooLarge: () => tooLarge.add(relay),
      ...(policy
        ? { policy, onRefused: (_url: string, message: string) => refused.set(relay, message) }
        : {}),
    });
  return {
    options: { websocket, ...options },
    explain(answer: portable.RelayAnswer): portable.RelayAnswer {
      if (tooLarge.has(answer.relay)) answer.error = describeTooLarge();
      const refusal = refused.get(answer.relay);
      if (refusal !== undefined) answer.error = refusal;
      return answer;
    },
  };
}

/**
 * One `REQ` for `filter` on `relay` until `EOSE` (or the first event that counts, with `first`), over `ws`
 * with a 2 MiB cap per message. Never throws: failures are in the answer's `error`.
 *
 * @example
 * ```ts
 * const answer = await queryRelay('wss://relay.example.com', { ids: [id] }, { accept: isValid });
 * ```
 */
export async function queryRelay(
  relay: string,
  filter: Record<string, unknown>,
  options: NodeRelayQueryOptions = {},
): Promise<portable.RelayAnswer> {
  const capped = onCappedSockets(options);
  return capped.explain(await portable.queryRelay(relay, filter, capped.options));
}

/**
 * Ask every relay at once for the event `id`; the first event with exactly that id that `accept` takes
 * wins (see relay-query-portable.ts), over `ws` with a 2 MiB cap per message.
 *
 * @example
 * ```ts
 * const found = await fetchEventFromRelays(id, ['wss://relay.example.com'], { accept: isValid });
 * if (found.event) console.log(`event from ${found.relay}`);
 * ```
 */
export async function fetchEventFromRelays(
  id: string,
  relays: readonly string[],
  options: NodeRelayQueryOptions = {},
): Promise<portable.RelayLookup> {
  const capped = onCappedSockets(options);
  const found = await portable.fetchEventFromRelays(id, relays, capped.options);
  if (!found.event) for (const answer of found.answers) capped.explain(answer);
  return found;
}
