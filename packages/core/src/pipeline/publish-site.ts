import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import { parseBlossomServers, readBlossomServersFromEnv } from '../net/blossom.js';
import { loadSigningEngine } from '../nostr/crypto.js';
import { isEventShape } from '../nostr/event-shape.js';
import { outboxFileOf } from '../nostr/publish-outbox.js';
import { formatPublishReport, type PublishReport, PublishSession } from '../nostr/publish-session.js';
import type { RelayPublisherOptions } from '../nostr/relay-publisher.js';
import { parseRelays, readRelaysFromEnv } from '../nostr/relays.js';
import type { Signer } from '../nostr/signer.js';
import { verifyEventSignature } from '../nostr/verify-signature.js';
import { DEFAULTS, type SiegelLogger } from '../options/options.js';
import { openSigner } from '../signer/create-signer.js';
import { VERIFY_DIR } from '../verify/verify-output.js';
import { type BlossomReport, uploadSiteBlobs } from './publish-blossom.js';

/** Options of {@link publishSite}; every field is optional. */
export interface PublishSiteOptions {
  /** Relays for `all` (default: `SIEGEL_RELAYS` from `env`). The outbox's events go where they still must. */
  relays?: string[];
  /** Environment for `SIEGEL_RELAYS` (default: none; the CLI passes `loadEnv(cwd)`). */
  env?: Record<string, string | undefined>;
  /** The cache file whose outbox is sent (default `.sign-cache.json` in the current directory). */
  cacheFile?: string;
  /** Also send every event in `{dir}/verify/*.json` to the relays (default `false`). */
  all?: boolean;
  /** Where the report and warnings go (default: the console). */
  logger?: SiegelLogger;
  /** Timeouts and window of the publisher. */
  publisher?: RelayPublisherOptions;
  /**
   * How long to wait for the relays' answers, in milliseconds (default 30 000); what is not confirmed by
   * then stays in the outbox.
   */
  timeoutMs?: number;
  /**
   * Blossom servers (BUD-02) to upload every file of the site's manifest (`verify/manifest.json`) to, so
   * that an nsite gateway can serve the site (default: `SIEGEL_BLOSSOM` from `env`; none: no upload).
   */
  blossom?: string[];
  /**
   * Who signs the Blossom auth events (BUD-11): a `Signer`, or a `bunker://` URI (default: as `signSite`
   * picks it from `env` — `SIEGEL_SECRET_KEY`, else the bunker at `BUNKER_URL` with `BUNKER_API_TOKEN`).
   * Asked only when some blob must be uploaded.
   */
  signer?: Signer | string;
}

/** What {@link publishSite} did: the relays' report, and with Blossom servers, theirs. */
export interface PublishSiteReport extends PublishReport {
  /** The uploads to the Blossom servers (none configured: undefined). */
  blossom: BlossomReport | undefined;
}

/**
 * Send a signed site's events to the relays again: every event waiting in the outbox (beside the cache) to
 * the relays it still needs, whatever its next-try time, and with `all` every event in `{dir}/verify/*.json`
 * (each checked: id and signature) to the configured relays. Logs one line per run — how many events each
 * relay took, and how many still wait in the outbox — and returns the report; `unreached` counts the events
 * no relay has taken. With Blossom servers (`blossom`, `SIEGEL_BLOSSOM`), first uploads every file the
 * site's manifest lists to each of them ({@link uploadSiteBlobs}: blobs before the manifest that names them).
 *
 * @example
 * ```ts
 * const report = await publishSite('dist', { env: loadEnv(process.cwd()), all: true });
 * if (report.unreached > 0 || (report.blossom?.failed ?? 0) > 0) process.exitCode = 1;
 * ```
 * @throws {SiegelError} `invalid_options` (a bad relay or Blossom server; `all` without relays), `io_error`
 *   (no `{dir}/verify/` for `all`, no signed manifest for `blossom`, an outbox that cannot be written);
 *   the signer's errors.
 */
export async function publishSite(dir: string, options: PublishSiteOptions = {}): Promise<PublishSiteReport> {
  const logger = options.logger ?? console;
  const env = options.env ?? {};
  const relays = options.relays ? parseRelays(options.relays) : readRelaysFromEnv(env.SIEGEL_RELAYS);
  if (options.all && relays.length === 0)
    throw new SiegelError('invalid_options', '`--all` needs relays: `--relay wss://…` or SIEGEL_RELAYS');
  const servers = options.blossom
    ? parseBlossomServers(options.blossom)
    : readBlossomServersFromEnv(env.SIEGEL_BLOSSOM);
  const cacheFile = resolve(options.cacheFile ?? DEFAULTS.cacheFile);
  const blossom =
    servers.length > 0 ? await uploadBlobs(dir, servers, cacheFile, options, logger) : undefined;
  const events = options.all ? await readVerifyEvents(resolve(dir), logger) : [];
  const outboxFile = outboxFileOf(cacheFile);
  const { session, warning } = await PublishSession.open({
    relays,
    outboxFile,
    budgetMs: options.timeoutMs ?? DEFAULTS.publishCommandTimeoutMs,
    ...(options.publisher ? { publisher: options.publisher } : {}),
  });
  if (warning) logger.warn(warning);
  session.sendOutbox();
  await session.send(events);
  const report = await session.finish();
  const line = formatPublishReport(report);
  if (!line) {
    if (!blossom) logger.info('Siegel: nothing to publish (the outbox is empty; `--all` sends every event)');
  } else if (report.waiting > 0) logger.warn(line);
  else logger.info(line);
  return { ...report, blossom };
}

/** The Blossom uploads, with the site's signer opened (as a signing run opens it) only when one is needed. */
async function uploadBlobs(
  dir: string,
  servers: string[],
  cacheFile: string,
  options: PublishSiteOptions,
  logger: SiegelLogger,
): Promise<BlossomReport> {
  let opened: Awaited<ReturnType<typeof openSigner>> | undefined;
  try {
    return await uploadSiteBlobs(dir, {
      servers,
      logger,
      openSigner: async () => {
        opened = await openSigner({
          signer: options.signer,
          logger,
          cacheFile,
          env: options.env ?? {},
          bunkerUrl: undefined,
          bunkerApiToken: undefined,
          bunkerKeyName: undefined,
          dryRun: false,
        });
        return opened.signer as Signer;
      },
    });
  } finally {
    if (opened?.owned) await opened.signer?.close?.();
  }
}

/** The events of `{root}/verify/*.json`; files that are not a signed event are named in a warning and left out. */
async function readVerifyEvents(root: string, logger: SiegelLogger): Promise<NostrEvent[]> {
  const folder = join(root, VERIFY_DIR);
  let names: string[];
  try {
    // A layout-blob manifest's path list (`manifest-<sha256>.json`) is a file, not an event: not sent.
    names = (await readdir(folder))
      .filter((name) => name.endsWith('.json') && !/^manifest-[0-9a-f]{64}\.json$/.test(name))
      .sort();
  } catch (cause) {
    throw new SiegelError('io_error', `No verify pages in \`${folder}\`: is it a site signed by Siegel?`, {
      cause,
    });
  }
  const engine = await loadSigningEngine();
  const events: NostrEvent[] = [];
  for (const name of names) {
    let event: unknown;
    try {
      event = JSON.parse(await readFile(join(folder, name), 'utf8'));
    } catch {
      event = undefined;
    }
    if (isEventShape(event) && verifyEventSignature(engine, event)) events.push(event);
    else logger.warn(`Siegel: \`${VERIFY_DIR}/${name}\` is not a validly signed event; not sent`);
  }
  return events;
}
