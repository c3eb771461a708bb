/** A running {@link startHostileRelay}. */
export interface HostileRelay {
  /** `ws://127.0.0.1:PORT` */
  url: string;
  /** The filters of every `REQ` it got. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** A relay that answers every `REQ` with `answer(filter)` (forged events, other ids), then `EOSE`. */
export function startHostileRelay(
  answer: (filter: Record<string, unknown>) => unknown[],
): Promise<HostileRelay>;
