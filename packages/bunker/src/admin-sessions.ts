import { randomBytes } from 'node:crypto';

/** How long a dashboard sign-in lasts: 12 hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Dashboard sessions, in memory only (a restart signs everyone out). A session id is 32 random bytes;
 * the admin token itself never goes into a cookie.
 */
export class AdminSessions {
  readonly #sessions = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Start a session and return its id. */
  create(): string {
    this.#sweep();
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, this.#now() + SESSION_TTL_MS);
    return id;
  }

  /** Whether `id` names a live session. */
  has(id: string | undefined): boolean {
    if (!id) return false;
    const expires = this.#sessions.get(id);
    if (expires === undefined) return false;
    if (expires <= this.#now()) {
      this.#sessions.delete(id);
      return false;
    }
    return true;
  }

  /** End a session. */
  delete(id: string | undefined): void {
    if (id) this.#sessions.delete(id);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, expires] of this.#sessions) if (expires <= now) this.#sessions.delete(id);
  }
}
