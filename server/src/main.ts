#!/usr/bin/env node
// Entry point of the file-signing service: the only module that reads the environment and listens.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { serve } from '@hono/node-server';
import { createSigner, loadEnv, type Signer } from '@siegel/core';
import { npubEncode } from 'nostr-tools/nip19';
import { readServerConfig, type ServerConfig } from './config/config.js';
import { prepareDataDir } from './config/data-dir.js';
import { createApp } from './http/app.js';
import { RelayPublishing } from './publishing/relay-publishing.js';
import { createRelaySender } from './publishing/send-to-relays.js';
import { fallbackNotice } from './records/verify-record.js';
import { OrphanSweeper } from './signing/orphan-sweeper.js';
import { openStores, type Stores } from './storage/open-stores.js';

// WebAssembly (core's Schnorr engine, undici's HTTP parser behind the bunker client) is compiled to
// optimized code once, when loaded at start, instead of first to baseline code and again, optimized, in the
// background once it has run enough: that second compile came during the second or third upload and took
// 10–20 MB while it ran. Set before any WebAssembly is compiled.
setFlagsFromString('--no-wasm-dynamic-tiering');

const USAGE = `Usage: siegel-server [--dev]

Starts the file-signing service in the working directory (settings from the environment and \`.env\` there).
  --dev          also accept a generated sign token, printed at start
  --version, -v  print the version
  --help, -h     print this help

Settings: HOST, PORT (8787), BASE_URL, CDN_URL, SIEGEL_DATA_DIR (./data), SIGN_API_TOKENS,
SIGN_CORS_ORIGINS (none), SIGN_PUBKEYS (none), BUNKER_URL, BUNKER_API_TOKEN, BUNKER_KEY_NAME, DATABASE_URL
(PostgreSQL; none: SQLite), S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE (files in S3; none: the data
directory); all in the README of @siegel/server.

  siegel-server migrate --from sqlite:./data --to postgres://…   copy a SQLite store to PostgreSQL (and S3)
`;

const args = process.argv.slice(2);
if (args[0] === 'migrate') {
  const { runMigrate } = await import('./cli/migrate-cli.js');
  process.exit(await runMigrate(args.slice(1), loadEnv(process.cwd())));
}
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.includes('--version') || args.includes('-v')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
const unknown = args.filter((arg) => arg !== '--dev');
if (unknown.length > 0) {
  process.stderr.write(`siegel-server: unknown argument \`${unknown[0]}\`\n\n${USAGE}`);
  process.exit(2);
}
const dev = args.includes('--dev');
// process.env, overlaid with `.env` in the working directory (never mutating process.env).
const env = loadEnv(process.cwd());
let config: ServerConfig;
try {
  config = readServerConfig(env);
  // Created 0700 when missing; refused when group or others may write to it. Not needed when both the
  // records (PostgreSQL) and the files (S3) live elsewhere: such an instance keeps nothing on its disk.
  if (config.databaseUrl === undefined || config.s3 === undefined) await prepareDataDir(config.dataDir);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const signTokens = [...config.signTokens];
let devToken: string | undefined;
if (dev) {
  devToken = randomBytes(24).toString('base64url');
  signTokens.push(devToken);
}

let signer: Signer;
try {
  signer = createSigner({ env });
} catch (error) {
  // Without BUNKER_API_TOKEN the service still serves and verifies; signing answers 503 with the message.
  console.warn((error as Error).message);
  signer = {
    getPublicKey: () => Promise.reject(error),
    signEvents: () => Promise.reject(error),
  };
}

let stores: Stores;
try {
  stores = await openStores(config);
} catch (error) {
  // One line: which store, where (host and port, or endpoint and bucket), why.
  console.error((error as Error).message);
  process.exit(1);
}
const { records, storage } = stores;
// The one publisher loop of this process: it sends what the outbox holds as due; no request waits on it.
const relaySender = createRelaySender();
const publishing = new RelayPublishing({
  relays: config.relays,
  deliveries: records.deliveries,
  send: relaySender.send,
  firstRetryMs: config.relayRetryMs,
  // Look for due deliveries as often as the shortest wait, at most every 15 s.
  retryEveryMs: Math.min(15_000, config.relayRetryMs),
});
const { app, fileSigner, analyzer, verifier } = createApp({
  signer,
  storage,
  records,
  claims: records,
  uploadTokens: records,
  baseUrl: config.baseUrl,
  cdnUrl: config.cdnUrl,
  signTokens,
  corsOrigins: config.corsOrigins,
  signPubkeys: config.signPubkeys,
  maxUploadBytes: config.maxUploadBytes,
  rateLimitPerMinute: config.rateLimitPerMinute,
  maxUploadsInFlight: config.maxUploadsInFlight,
  maxBufferedBytes: config.maxBufferedBytes,
  uploadWaitMs: config.uploadWaitMs,
  maxDownloadBufferedBytes: config.maxDownloadBufferedBytes,
  analysisWorkers: config.analysisWorkers,
  analysisTimeoutMs: config.analysisTimeoutMs,
  publishing,
  relayWaitMs: config.relayWaitMs,
  claimLeaseMs: config.claimLeaseMs,
  fileRedirect: config.fileRedirect,
  // Verify by URL asks the relays this server publishes to; its address policy is the default (public only).
  verifyRelays: config.relays,
  verifyUrl: config.verifyUrl,
});
// The analysis workers load their modules now, not while the first upload waits.
await analyzer.start();
// Load and build before listening what the first signing would otherwise load and build while it holds an
// upload in memory.
await verifier.prepare({ onFallback: (reason) => console.warn(fallbackNotice(reason)) });
// Stored files without a record (a crash, here or on another instance, between file and record) are deleted
// at start, every ORPHAN_SWEEP_MS, and once the claims that kept a sweep from some of them have ended. The
// first sweep runs beside the first requests, not before them: it only ever deletes a hash's files under that
// hash's claim (see FileSigner.removeOrphans), and listing a large bucket would hold up the start.
const sweeper = new OrphanSweeper({
  removeOrphans: (hashes) => fileSigner.removeOrphans(hashes),
  everyMs: config.orphanSweepMs,
});
sweeper.start();
fileSigner.onUnsettled = (hash) => sweeper.lookLater([{ hash, endsInMs: config.claimLeaseMs }]);

const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
  console.log(
    `Siegel server listening on http://${info.address}:${info.port} (public address ${config.baseUrl})`,
  );
  console.log(`Sign page: ${config.baseUrl}/tools/sign · verify page: ${config.baseUrl}/verify`);
  console.log(`Records: ${stores.description.records} · files: ${stores.description.storage}`);
  if (publishing.enabled) {
    console.log(`Publishing signed events to ${config.relays.join(', ')}`);
    // What waits in the outbox from before (relays down, a restart) goes out now, then as it falls due.
    publishing.start();
  }
  if (config.signPubkeys.length > 0)
    console.log(
      `Blossom uploads (PUT /upload) from ${config.signPubkeys.length} Nostr key(s) in SIGN_PUBKEYS`,
    );
  if (devToken !== undefined) console.log(`Dev sign token: ${devToken}`);
  else if (signTokens.length === 0)
    console.warn('SIGN_API_TOKENS is empty: signing is refused until a token is set.');
  // Ask the bunker once now: shows which key signs (or why it cannot) before the first upload does.
  signer.getPublicKey().then(
    (pubkey) =>
      console.log(`Signing with ${npubEncode(pubkey)} (bunker key \`${env.BUNKER_KEY_NAME || 'default'}\`)`),
    // The first line; for an unreachable bunker also the second, which tells where BUNKER_URL was set.
    (error: Error & { code?: unknown }) =>
      console.warn(
        `The bunker cannot sign yet: ${error.message
          .split('\n')
          .slice(0, error.code === 'bunker_unreachable' ? 2 : 1)
          .join('\n')}`,
      ),
  );
});

// A port another process holds: one line naming it and PORT, not Node's bare `listen EADDRINUSE` and a stack.
server.once('error', (error: Error & { code?: string }) => {
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(
    `siegel-server: port ${config.port} on ${config.host} is in use by another process: stop it, or set another port with PORT (e.g. PORT=${config.port === 65535 ? config.port - 1 : config.port + 1}; PORT=0 picks a free one)`,
  );
  process.exit(1);
});

let stopping = false;
function shutdown(): void {
  // Ctrl-C in a terminal sends SIGINT to the whole process group, and a supervisor in it (`npm run demo`)
  // sends SIGTERM as well: one shutdown.
  if (stopping) return;
  stopping = true;
  server.close(async () => {
    relaySender.close(); // what is on the wire fails now and stays in the outbox
    sweeper.stop();
    await publishing.stop();
    await records.close();
    void analyzer.close().finally(() => process.exit(0));
  });
  setTimeout(() => process.exit(0), 3000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
