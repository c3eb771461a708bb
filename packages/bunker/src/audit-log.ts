import { type FileHandle, open } from 'node:fs/promises';

/** One line of the audit log. No content, no tags: only what identifies the signature. */
export interface AuditEntry {
  /** ISO 8601 time of signing. */
  time: string;
  /** The key's name. */
  key: string;
  /** The signed event's id. */
  id: string;
  /** The signed event's kind. */
  kind: number;
  /** The NIP-46 client (hex pubkey) the signature was made for; absent for the HTTP API. */
  client?: string;
}

/** Where signatures are recorded. */
export interface AuditLog {
  /** Append one line per signed event; resolves once the lines are written. */
  record(entries: readonly AuditEntry[]): Promise<void>;
  /** Flush and close. */
  close(): Promise<void>;
}

/**
 * An append-only audit log: one JSON line per signed event (`{"time","key","id","kind"}`, plus `"client"` for a NIP-46 client), in a file
 * opened for appending (`O_APPEND`, mode `0600`). Writes are serialised, so lines never interleave.
 *
 * @example
 * ```ts
 * const audit = await openAuditLog('.bunker/audit.log');
 * await audit.record([{ time: new Date().toISOString(), key: 'default', id, kind: 1 }]);
 * ```
 */
export async function openAuditLog(path: string): Promise<AuditLog> {
  const handle: FileHandle = await open(path, 'a', 0o600);
  let queue: Promise<void> = Promise.resolve();
  return {
    record(entries) {
      if (entries.length === 0) return queue;
      const text = entries
        .map((e) =>
          JSON.stringify({
            time: e.time,
            key: e.key,
            id: e.id,
            kind: e.kind,
            ...(e.client !== undefined && { client: e.client }),
          }),
        )
        .join('\n')
        .concat('\n');
      const written = queue.then(async () => {
        await handle.appendFile(text, 'utf8');
      });
      queue = written.catch(() => {});
      return written;
    },
    async close() {
      await queue;
      await handle.close();
    },
  };
}

/** An audit log that keeps nothing (for tests and embedding). */
export const noAuditLog: AuditLog = {
  record: async () => {},
  close: async () => {},
};
