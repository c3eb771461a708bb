#!/usr/bin/env node
// cli/ owns the `siegel` command: arguments, `.env` of the current directory, exit codes (0 success,
// 1 signing or verification failed, 2 usage error) and where messages go. It only calls the user API
// (`signSite`, `verifySite`), so everything the CLI does, a program can do too. text/terminal-text.ts makes
// remote words safe to print; every CLI of the repo and the places that quote remote strings use it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SiegelError } from '../errors.js';
import { parseRelays } from '../nostr/relays.js';
import { loadEnv } from '../options/env.js';
import { parseMirrors } from '../options/options.js';
import { publishSite } from '../pipeline/publish-site.js';
import { signSite } from '../pipeline/sign-site.js';
import { parseByteSize } from '../text/byte-size.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import { formatVerifyReport, formatVerifyReportJson, verifySite } from '../verify/verify-site.js';

/** Exit codes, documented in the README. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const HELP = `siegel — sign the <main> of every page of a built site with your Nostr key, and verify it

Usage:
  siegel sign [dir]          sign the HTML pages in dir (default: dist)
  siegel verify [dirOrUrl]   check every page's signature in dir or at an http(s) URL (default: dist)
  siegel publish [dir]       send the events waiting in the outbox to their relays again (default: dist)

Options for sign:
  --site URL        public URL of the site (default: SITE_URL)
  --mirror URL      another base URL the same pages are served at (a mirror); each page's event names
                    its address there too (a NIP-94 fallback tag), so verifiers accept it there;
                    repeatable (default: SIEGEL_MIRRORS). A change re-signs every page
  --selector CSS    signed element (default: main)
  --cache FILE      cache file (default: .sign-cache.json in the current directory)
  --relay URL       relay (wss://; ws:// on loopback): the block's nevent hint, and where the events are
                    published; repeatable (default: SIEGEL_RELAYS). Events a relay did not take wait in
                    .sign-outbox.json beside the cache and are sent again by later runs (with backoff)
  --publish-timeout S  seconds to wait for the relays' answers after the last page is signed (default 5,
                    or SIEGEL_PUBLISH_TIMEOUT_MS); what is not confirmed by then waits in the outbox
  --dry-run         sign and write nothing; report what would be signed (checks the key if a token is set)
  --max-page-bytes N  largest page to sign, e.g. 64MiB (default: 32MiB or SIEGEL_MAX_PAGE_BYTES)
  --verbose         list every page and its outcome

Options for publish:
  --relay URL       relay for --all; repeatable (default: SIEGEL_RELAYS)
  --cache FILE      the cache whose outbox is sent (default: .sign-cache.json in the current directory)
  --all             also send every event in dir/verify/*.json to the relays
  --publish-timeout S  seconds to wait for the relays' answers (default 30); what is not confirmed by
                    then stays in the outbox

Options for verify:
  --pubkey P        expected signer, hex or npub
  --signer NAME@DOMAIN  expected signer by NIP-05 (https://DOMAIN/.well-known/nostr.json)
  --relay URL       relay to ask for an event whose verify/{id}.json is missing, besides the nevent's
                    hints (wss://; ws:// only on loopback); repeatable
  --site URL        directory only: the site's public URL; each page's event must name its address
                    there (default: SITE_URL; without either, addresses are not compared: a warning)
  --selector CSS    signed element (default: main)
  --max-page-bytes N  largest page to check, as sent and unpacked (default: 32MiB)
  --verbose         list every page, and where its event came from
  --json            print the report as JSON: per page its verdict (valid, invalid, not_found) and its
                    problems with their codes (docs/verification.md)

Options for verify <url> (the site is not trusted: responses and time are bounded, and no request goes to
a loopback, link-local or private address unless the site itself is on one — then only to its own):
  --allow-redirects-to ORIGIN  follow redirects to this origin too, e.g. https://www.example.com
                               (repeatable; default: only within the site's origin)
  --request-timeout S  seconds for one request, from connecting to the last byte (default: 30)
  --total-timeout S    seconds for the whole check (default: 600)
  --user-agent UA      the User-Agent pages are asked for with (default: a current Chromium's). Pages are
                       asked for as a browser's navigation asks (Sec-Fetch-*, Accept, Accept-Language…),
                       so a site that tells browsers and tools apart sends what it sends readers
  --check-cloaking     ask for each page a second time as a plain client (no Sec-Fetch-*, User-Agent
                       siegel-verify): a page whose signed element differs between the two is invalid
                       (page.cloaked). A site can still tell this machine apart in other ways (its address,
                       TLS): only the browser extension checks the page a reader's browser got

  -h, --help        show this help
  -v, --version     show the version

Configuration is read from .env in the current directory (and the environment):
  BUNKER_API_TOKEN (required), BUNKER_URL (default http://localhost:7777), BUNKER_KEY_NAME (default default),
  or BUNKER_URL=bunker://<pubkey>?relay=wss://…&secret=… for a NIP-46 remote signer (no token; the client
  key is kept in .siegel-nip46-client.json beside the cache — a secret, keep it out of git),
  SITE_URL, SIEGEL_MIRRORS (comma-separated mirror URLs), SIEGEL_BATCH_SIZE (pages per bunker request,
  default 500),
  SIEGEL_RELAYS (comma-separated relays: nevent hints and where events are published; a change rewrites
  blocks, re-signs nothing).

Exit codes: 0 success (verify: every page valid, warnings allowed), 1 signing or verification failed
(verify: a page invalid or not found; publish: some event reached no relay), 2 usage error.
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

class UsageError extends Error {}

/** The options of `siegel verify <url>` alone: the careful client's limits and how pages are asked for. */
const URL_ONLY = [
  'allow-redirects-to',
  'request-timeout',
  'total-timeout',
  'user-agent',
  'check-cloaking',
] as const;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  const [command, target, ...extra] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument \`${extra[0]}\``);
  const env = loadEnv(process.cwd());
  // Everything printed passes toTerminalSafe: a remote string inside cannot drive the terminal.
  const logger = {
    info: (message: string) => process.stdout.write(`${toTerminalSafe(message)}\n`),
    warn: (message: string) => process.stderr.write(`${toTerminalSafe(message)}\n`),
    error: (message: string) => process.stderr.write(`${toTerminalSafe(message)}\n`),
  };
  // A bad `--relay` is named as the flag the user typed (the API's name for it is `relays`).
  if (values.relay !== undefined) parseRelays(values.relay, '--relay');
  if (values.mirror !== undefined && command === 'sign') parseMirrors(values.mirror, '--mirror');
  const publishTimeout = values['publish-timeout'];
  const publishTimeoutMs =
    publishTimeout === undefined ? undefined : parseSeconds(publishTimeout, '--publish-timeout', true);
  const maxPageBytes =
    values['max-page-bytes'] === undefined
      ? undefined
      : parseByteSize(values['max-page-bytes'], '--max-page-bytes');
  if (command === 'sign') {
    for (const name of ['pubkey', 'signer', 'json', ...URL_ONLY] as const)
      if (values[name] !== undefined) throw new UsageError(`\`--${name}\` is for verify`);
    if (values.all !== undefined) throw new UsageError('`--all` is for publish');
    const summary = await signSite(target ?? 'dist', {
      env,
      logger,
      dryRun: values['dry-run'] ?? false,
      verbose: values.verbose ?? false,
      ...(values.site !== undefined ? { site: values.site } : {}),
      ...(values.selector !== undefined ? { selector: values.selector } : {}),
      ...(values.cache !== undefined ? { cacheFile: values.cache } : {}),
      ...(values.relay !== undefined ? { relays: values.relay } : {}),
      ...(values.mirror !== undefined ? { mirrors: values.mirror } : {}),
      ...(maxPageBytes !== undefined ? { maxPageBytes } : {}),
      ...(publishTimeoutMs !== undefined ? { publishTimeoutMs } : {}),
    });
    return summary.failed > 0 ? EXIT.failure : EXIT.ok;
  }
  if (command === 'publish') {
    for (const name of [
      'site',
      'mirror',
      'selector',
      'dry-run',
      'verbose',
      'json',
      'pubkey',
      'max-page-bytes',
      ...URL_ONLY,
    ] as const) {
      if (values[name] !== undefined) throw new UsageError(`\`--${name}\` is not for publish`);
    }
    const report = await publishSite(target ?? 'dist', {
      env,
      logger,
      all: values.all ?? false,
      ...(values.cache !== undefined ? { cacheFile: values.cache } : {}),
      ...(values.relay !== undefined ? { relays: values.relay } : {}),
      ...(publishTimeoutMs !== undefined ? { timeoutMs: publishTimeoutMs } : {}),
    });
    return report.unreached > 0 ? EXIT.failure : EXIT.ok;
  }
  if (command === 'verify') {
    for (const name of ['cache', 'dry-run', 'mirror'] as const) {
      if (values[name] !== undefined) throw new UsageError(`\`--${name}\` is for sign`);
    }
    if (publishTimeout !== undefined) throw new UsageError('`--publish-timeout` is for sign and publish');
    if (values.all !== undefined) throw new UsageError('`--all` is for publish');
    const isUrl = /^https?:\/\//i.test(target ?? '');
    if (!isUrl) {
      for (const name of URL_ONLY)
        if (values[name] !== undefined) throw new UsageError(`\`--${name}\` is for verify <url>`);
    } else if (values.site !== undefined) {
      throw new UsageError('`--site` is for verify <dir>: a URL is checked at the address it is served at');
    }
    // A directory's pages are judged at the address they were signed for: --site, else SITE_URL.
    const site = isUrl ? undefined : (values.site ?? (env.SITE_URL?.trim() || undefined));
    const requestTimeout = values['request-timeout'];
    const totalTimeout = values['total-timeout'];
    const report = await verifySite(target ?? 'dist', {
      ...(site !== undefined ? { site } : {}),
      ...(values.pubkey !== undefined ? { pubkey: values.pubkey } : {}),
      ...(values.signer !== undefined ? { signer: values.signer } : {}),
      ...(values.relay !== undefined ? { relays: values.relay } : {}),
      ...(values.selector !== undefined ? { selector: values.selector } : {}),
      ...(maxPageBytes !== undefined ? { maxPageBytes } : {}),
      ...(values['allow-redirects-to'] !== undefined
        ? { allowRedirectsTo: values['allow-redirects-to'] }
        : {}),
      ...(requestTimeout !== undefined
        ? { requestTimeoutMs: parseSeconds(requestTimeout, '--request-timeout') }
        : {}),
      ...(totalTimeout !== undefined
        ? { totalTimeoutMs: parseSeconds(totalTimeout, '--total-timeout') }
        : {}),
      ...(values['user-agent'] !== undefined ? { userAgent: values['user-agent'] } : {}),
      ...(values['check-cloaking'] ? { checkCloaking: true } : {}),
    });
    if (values.json) logger.info(formatVerifyReportJson(report));
    else
      logger.info(
        formatVerifyReport(report, {
          verbose: values.verbose ?? false,
          ...(values.selector !== undefined ? { selector: values.selector } : {}),
        }),
      );
    if (report.pages.length === 0) logger.error('No signed pages found.');
    return report.ok ? EXIT.ok : EXIT.failure;
  }
  throw new UsageError(`Unknown command \`${command}\` (use sign, verify or publish)`);
}

/** Seconds from an option, in milliseconds; 0 only where `zero` allows it. */
function parseSeconds(text: string, name: string, zero = false): number {
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds > 0 || (zero && seconds === 0)))
    throw new UsageError(
      `\`${name}\` must be a number of seconds ${zero ? '(0 or more)' : 'greater than 0'}, got \`${text}\``,
    );
  return Math.round(seconds * 1000);
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'dry-run': { type: 'boolean' },
      all: { type: 'boolean' },
      verbose: { type: 'boolean' },
      json: { type: 'boolean' },
      site: { type: 'string' },
      selector: { type: 'string' },
      cache: { type: 'string' },
      relay: { type: 'string', multiple: true },
      mirror: { type: 'string', multiple: true },
      pubkey: { type: 'string' },
      signer: { type: 'string' },
      'max-page-bytes': { type: 'string' },
      'allow-redirects-to': { type: 'string', multiple: true },
      'request-timeout': { type: 'string' },
      'total-timeout': { type: 'string' },
      'publish-timeout': { type: 'string' },
      'user-agent': { type: 'string' },
      'check-cloaking': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof SiegelError && error.code === 'invalid_options')) {
      process.stderr.write(`${toTerminalSafe(error.message)}\nRun \`siegel --help\` for usage.\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    if (error instanceof SiegelError) {
      process.stderr.write(`${toTerminalSafe(error.message)}\n`);
    } else {
      process.stderr.write(
        `siegel: unexpected error: ${toTerminalSafe((error as Error)?.stack ?? String(error))}\n`,
      );
    }
    process.exitCode = EXIT.failure;
  },
);
