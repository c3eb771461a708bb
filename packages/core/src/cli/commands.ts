// The options of each `siegel` command, in one table per command: cli.ts reads the arguments against it
// (`parseArgs`, strict) and `--help` prints it, with an example. A new option is added here, once.

/** One option of a command: how `parseArgs` reads it and how `--help` shows it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: true;
  short?: string;
  /** The value's name in the help, e.g. `URL`. */
  value?: string;
  help: string;
  /** verify only: the option is for a URL, or for a directory, alone. */
  only?: 'url' | 'dir';
}

/** A command: its usage line, what it does, its options (the one table `parseArgs` and `--help` read) and an example. */
interface CommandSpec {
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  example: string;
}

/** Every command takes these. */
export const COMMON: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'v', help: 'show the version' },
};

const RELAY_HELP =
  "relay (wss://; ws:// on loopback): the block's nevent hint, and where the events are published; repeatable (default: SIEGEL_RELAYS). Events a relay did not take wait in .sign-outbox.json beside the cache and are sent again by later runs (with backoff)";

/** The options of each command: one table per command, read by `parseArgs` (strict) and by `--help`. */
export const COMMANDS: Record<'sign' | 'verify' | 'publish', CommandSpec> = {
  sign: {
    usage: 'siegel sign [dir]',
    summary: 'sign the HTML pages in dir (default: dist)',
    options: {
      site: { type: 'string', value: 'URL', help: 'public URL of the site (default: SITE_URL)' },
      mirror: {
        type: 'string',
        multiple: true,
        value: 'URL',
        help: "another base URL the same pages are served at (a mirror); each page's event names its address there too (a NIP-94 fallback tag), so verifiers accept it there; repeatable (default: SIEGEL_MIRRORS). A change re-signs every page",
      },
      selector: { type: 'string', value: 'CSS', help: 'signed element (default: main)' },
      'site-id': {
        type: 'string',
        value: 'ID',
        help: "the site manifest's d tag (NIP-5A: 1-13 of a-z, 0-9 and -, not ending in -; default: SIEGEL_SITE_ID, else derived from the site URL). Give one when the relays hold another site's manifest under the derived id",
      },
      'root-site': {
        type: 'boolean',
        help: "sign the key's root site manifest (kind 15128, one per key) instead of a named site (35128)",
      },
      cache: {
        type: 'string',
        value: 'FILE',
        help: 'cache file (default: .sign-cache.json in the current directory)',
      },
      mark: {
        type: 'boolean',
        help: "put the reader's mark on every signed page: writes verify/siegel-mark.js, the <siegel-mark> element that invites readers to check who signed the page (docs/mark.md), and names it in each block",
      },
      'mark-server': {
        type: 'string',
        value: 'URL',
        help: 'with the mark: a file server whose /verify?url= the mark links to (implies --mark)',
      },
      'mark-extension': {
        type: 'string',
        value: 'URL',
        help: 'with the mark: where it sends readers for the browser extension (default: its README; implies --mark)',
      },
      relay: { type: 'string', multiple: true, value: 'URL', help: RELAY_HELP },
      'publish-timeout': {
        type: 'string',
        value: 'S',
        help: "seconds to wait for the relays' answers after the last page is signed (default 5, or SIEGEL_PUBLISH_TIMEOUT_MS); what is not confirmed by then waits in the outbox",
      },
      'dry-run': {
        type: 'boolean',
        help: 'sign and write nothing; report what would be signed (checks the key if a token is set)',
      },
      'max-page-bytes': {
        type: 'string',
        value: 'N',
        help: 'largest page to sign, e.g. 64MiB (default: 32MiB or SIEGEL_MAX_PAGE_BYTES)',
      },
      verbose: { type: 'boolean', help: 'list every page and its outcome' },
      help: COMMON.help as OptionSpec,
    },
    example: 'siegel sign dist --site https://example.com --relay wss://relay.example.com',
  },
  verify: {
    usage: 'siegel verify [dirOrUrl] | --evidence FILE',
    summary: "check every page's signature in dir or at an http(s) URL (default: dist)",
    options: {
      pubkey: { type: 'string', value: 'P', help: 'expected signer, hex or npub' },
      signer: {
        type: 'string',
        value: 'NAME@DOMAIN',
        help: 'expected signer by NIP-05 (https://DOMAIN/.well-known/nostr.json)',
      },
      relay: {
        type: 'string',
        multiple: true,
        value: 'URL',
        help: "your relay: asked for the site's newest manifest (is the page current?) and for an event whose verify/{id}.json is missing, besides the page's hints (default SIEGEL_RELAYS; wss://, ws:// only on loopback); repeatable",
      },
      site: {
        type: 'string',
        value: 'URL',
        only: 'dir',
        help: "directory only: the site's public URL; each page's event must name its address there (default: SITE_URL; without either, addresses are not compared: a warning)",
      },
      selector: { type: 'string', value: 'CSS', help: 'signed element (default: main)' },
      'max-page-bytes': {
        type: 'string',
        value: 'N',
        help: 'largest page to check, as sent and unpacked (default: 32MiB)',
      },
      verbose: { type: 'boolean', help: 'list every page, and where its event came from' },
      json: {
        type: 'boolean',
        help: 'print the report as JSON: per page its verdict (valid, invalid, not_found) and its problems with their codes (docs/verification.md)',
      },
      evidence: {
        type: 'string',
        value: 'FILE',
        help: "re-check an evidence file the browser extension saved, offline: every rule-book code re-derived from the recorded bytes, event(s) and manifest and compared with the extension's; its live findings and relay and NIP-05 answers shown as observed then. Fails when what it records was edited (evidence.*). Takes only --json and --verbose",
      },
      'allow-redirects-to': {
        type: 'string',
        multiple: true,
        value: 'ORIGIN',
        only: 'url',
        help: "follow redirects to this origin too, e.g. https://www.example.com (repeatable; default: only within the site's origin)",
      },
      'request-timeout': {
        type: 'string',
        value: 'S',
        only: 'url',
        help: 'seconds for one request, from connecting to the last byte (default: 30)',
      },
      'total-timeout': {
        type: 'string',
        value: 'S',
        only: 'url',
        help: 'seconds for the whole check (default: 600)',
      },
      'user-agent': {
        type: 'string',
        value: 'UA',
        only: 'url',
        help: "the User-Agent pages are asked for with (default: a current Chromium's). Pages are asked for as a browser's navigation asks (Sec-Fetch-*, Accept, Accept-Language…), so a site that tells browsers and tools apart sends what it sends readers",
      },
      'check-cloaking': {
        type: 'boolean',
        only: 'url',
        help: "ask for each page a second time as a plain client (no Sec-Fetch-*, User-Agent siegel-verify): a page whose signed element differs between the two is invalid (page.cloaked). A site can still tell this machine apart in other ways (its address, TLS): only the browser extension checks the page a reader's browser got",
      },
      help: COMMON.help as OptionSpec,
    },
    example: 'siegel verify https://example.com/ --signer alice@example.com',
  },
  publish: {
    usage: 'siegel publish [dir]',
    summary:
      'send the events waiting in the outbox to their relays again; with --blossom, upload the site to Blossom servers (default: dist)',
    options: {
      relay: {
        type: 'string',
        multiple: true,
        value: 'URL',
        help: 'relay for --all; repeatable (default: SIEGEL_RELAYS)',
      },
      cache: {
        type: 'string',
        value: 'FILE',
        help: 'the cache whose outbox is sent (default: .sign-cache.json in the current directory)',
      },
      all: { type: 'boolean', help: 'also send every event in dir/verify/*.json to the relays' },
      blossom: {
        type: 'string',
        multiple: true,
        value: 'URL',
        help: "Blossom server (https://; http:// on loopback) to upload every file of the site's signed manifest (verify/manifest.json) to, first, so that an nsite gateway can serve the site: BUD-02 PUT /upload, each with a BUD-11 auth event signed by the site's signer (as sign picks it); blobs the server has are skipped; repeatable (default: SIEGEL_BLOSSOM)",
      },
      'publish-timeout': {
        type: 'string',
        value: 'S',
        help: "seconds to wait for the relays' answers (default 30); what is not confirmed by then stays in the outbox",
      },
      help: COMMON.help as OptionSpec,
    },
    example: 'siegel publish dist --all --relay wss://relay.example.com',
  },
};

export type CommandName = keyof typeof COMMANDS;
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

/** The options `verify --evidence` takes besides itself: the evidence is re-checked offline, as recorded. */
export const EVIDENCE_OPTIONS = ['evidence', 'json', 'verbose'] as const;

const URL_NOTE =
  'for a URL only (the site is not trusted: responses and time are bounded, and no request goes to a loopback, link-local or private address unless the site itself is on one — then only to its own)';

const CONFIGURATION = `Configuration is read from .env in the current directory (and the environment):
  BUNKER_API_TOKEN (required), BUNKER_URL (default http://localhost:7777), BUNKER_KEY_NAME (default default),
  or BUNKER_URL=bunker://<pubkey>?relay=wss://…&secret=… for a NIP-46 remote signer (no token; the client
  key is kept in .siegel-nip46-client.json beside the cache — a secret, keep it out of git),
  SITE_URL, SIEGEL_MIRRORS (comma-separated mirror URLs), SIEGEL_SITE_ID (the site manifest's d tag),
  SIEGEL_BLOSSOM (comma-separated Blossom servers: named in the manifest, and where publish uploads the site's
  files), SIEGEL_BATCH_SIZE (pages per bunker request, default 500),
  SIEGEL_RELAYS (comma-separated relays: nevent hints and where events are published; a change rewrites
  blocks, re-signs nothing).

Exit codes: 0 success (verify: every page valid, warnings allowed), 1 signing or verification failed
(sign: a page failed, or no page signed; verify: a page invalid or not found; publish: some event reached
no relay, or some file did not reach a Blossom server), 2 usage error.
`;

/** Lines of at most `width` characters, words kept whole. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** An options table: each flag with its value's name, and its help wrapped beside it. */
function optionsTable(options: Array<[string, OptionSpec]>): string {
  const label = ([name, spec]: [string, OptionSpec]) =>
    `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
  const column = Math.max(...options.map((option) => label(option).length)) + 4;
  return options
    .map((option) => {
      const [first, ...rest] = wrap(option[1].help, Math.max(40, 112 - column));
      return [
        `  ${label(option).padEnd(column - 2)}${first}`,
        ...rest.map((line) => `${' '.repeat(column)}${line}`),
      ].join('\n');
    })
    .join('\n');
}

/** A command's options (with `--help` or without), those for a URL only under a heading of their own. */
function commandOptions(name: CommandName, withHelp = false): string {
  const entries = Object.entries(COMMANDS[name].options).filter(([option]) => withHelp || option !== 'help');
  const urlOnly = entries.filter(([, spec]) => spec.only === 'url');
  const rest = entries.filter(([, spec]) => spec.only !== 'url');
  const urlHeading = wrap(`Options of ${name}, ${URL_NOTE}:`, 110).join('\n');
  return [
    `Options of ${name}:\n${optionsTable(rest)}`,
    ...(urlOnly.length > 0 ? [`${urlHeading}\n${optionsTable(urlOnly)}`] : []),
  ].join('\n\n');
}

/**
 * `siegel <command> --help`: its usage, options and one example.
 *
 * @example
 * ```ts
 * process.stdout.write(commandHelp('verify'));
 * ```
 */
export function commandHelp(name: CommandName): string {
  const command = COMMANDS[name];
  return `Usage: ${command.usage}   ${command.summary}

${commandOptions(name, true)}

Example:
  ${command.example}

Configuration (.env) and exit codes: siegel --help
`;
}

/**
 * `siegel --help`: every command with its options, the configuration, the exit codes and an example.
 *
 * @example
 * ```ts
 * process.stdout.write(mainHelp());
 * ```
 */
export function mainHelp(): string {
  const commands = COMMAND_NAMES.map((name) => [COMMANDS[name].usage, COMMANDS[name].summary] as const);
  const width = Math.max(...commands.map(([usage]) => usage.length)) + 3;
  return `siegel — sign the <main> of every page of a built site with your Nostr key, and verify it

Usage:
${commands.map(([usage, summary]) => `  ${usage.padEnd(width)}${summary}`).join('\n')}
  ${'siegel <command> --help'.padEnd(width)}a command's options, with an example

${COMMAND_NAMES.map((name) => commandOptions(name)).join('\n\n')}

${optionsTable(Object.entries(COMMON))}

${CONFIGURATION}
Example:
  siegel sign dist --site https://example.com && siegel verify dist
`;
}
