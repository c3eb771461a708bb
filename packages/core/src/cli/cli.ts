#!/usr/bin/env node
// cli/ owns the `siegel` command: arguments, `.env` of the current directory, exit codes (0 success,
// 1 signing or verification failed, 2 usage error) and where messages go. It only calls the user API
// (`signSite`, `verifySite`), so everything the CLI does, a program can do too. text/terminal-text.ts makes
// remote words safe to print; every CLI of the repo and the places that quote remote strings use it.
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SiegelError } from '../errors.js';
import { parseRelays } from '../nostr/relays.js';
import { loadEnv } from '../options/env.js';
import { parseMirrors } from '../options/options.js';
import { checkSiteUrl } from '../page/page-event.js';
import { publishSite } from '../pipeline/publish-site.js';
import { signSite } from '../pipeline/sign-site.js';
import { parseByteSize } from '../text/byte-size.js';
import { closestName } from '../text/closest-name.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import { formatVerifyReport, formatVerifyReportJson, verifySite } from '../verify/verify-site.js';

/** Exit codes, documented in the README. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** One option of a command: how `parseArgs` reads it and how `--help` shows it. */
interface OptionSpec {
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
const COMMON: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', short: 'v', help: 'show the version' },
};

const RELAY_HELP =
  "relay (wss://; ws:// on loopback): the block's nevent hint, and where the events are published; repeatable (default: SIEGEL_RELAYS). Events a relay did not take wait in .sign-outbox.json beside the cache and are sent again by later runs (with backoff)";

/** The options of each command: one table per command, read by `parseArgs` (strict) and by `--help`. */
const COMMANDS: Record<'sign' | 'verify' | 'publish', CommandSpec> = {
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
      cache: {
        type: 'string',
        value: 'FILE',
        help: 'cache file (default: .sign-cache.json in the current directory)',
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
    usage: 'siegel verify [dirOrUrl]',
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
        help: "relay to ask for an event whose verify/{id}.json is missing, besides the nevent's hints (wss://; ws:// only on loopback); repeatable",
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
    summary: 'send the events waiting in the outbox to their relays again (default: dist)',
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

type CommandName = keyof typeof COMMANDS;
const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

const URL_NOTE =
  'for a URL only (the site is not trusted: responses and time are bounded, and no request goes to a loopback, link-local or private address unless the site itself is on one — then only to its own)';

const CONFIGURATION = `Configuration is read from .env in the current directory (and the environment):
  BUNKER_API_TOKEN (required), BUNKER_URL (default http://localhost:7777), BUNKER_KEY_NAME (default default),
  or BUNKER_URL=bunker://<pubkey>?relay=wss://…&secret=… for a NIP-46 remote signer (no token; the client
  key is kept in .siegel-nip46-client.json beside the cache — a secret, keep it out of git),
  SITE_URL, SIEGEL_MIRRORS (comma-separated mirror URLs), SIEGEL_BATCH_SIZE (pages per bunker request,
  default 500),
  SIEGEL_RELAYS (comma-separated relays: nevent hints and where events are published; a change rewrites
  blocks, re-signs nothing).

Exit codes: 0 success (verify: every page valid, warnings allowed), 1 signing or verification failed
(sign: a page failed, or no page signed; verify: a page invalid or not found; publish: some event reached
no relay), 2 usage error.
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

/** `siegel <command> --help`: its usage, options and one example. */
function commandHelp(name: CommandName): string {
  const command = COMMANDS[name];
  return `Usage: ${command.usage}   ${command.summary}

${commandOptions(name, true)}

Example:
  ${command.example}

Configuration (.env) and exit codes: siegel --help
`;
}

/** `siegel --help`: every command with its options, the configuration, the exit codes and an example. */
function mainHelp(): string {
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

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

class UsageError extends Error {}

/** Where a usage error points: the command's own help once the command is known. */
let usageHint = 'siegel --help';

/** The `parseArgs` table of a command's options (or, without one, of the options every command takes). */
function parseTable(command: CommandName | undefined): ParseArgsConfig['options'] {
  const options = command ? { ...COMMANDS[command].options, version: COMMON.version } : COMMON;
  return Object.fromEntries(
    Object.entries(options as Record<string, OptionSpec>).map(([name, spec]) => [
      name,
      {
        type: spec.type,
        ...(spec.multiple ? { multiple: true } : {}),
        ...(spec.short ? { short: spec.short } : {}),
      },
    ]),
  );
}

/** Every option of every command: to read the arguments once, before the command is known. */
function allOptions(): NonNullable<ParseArgsConfig['options']> {
  return Object.assign({}, ...COMMAND_NAMES.map(parseTable), parseTable(undefined));
}

/**
 * The arguments, read against the command's own table (`parseArgs`, strict), with one wording per
 * mistake: an option of another command names that command, an unknown one the nearest known one (edit
 * distance), a missing or unwanted value the option.
 * @throws {UsageError} for any mistake.
 */
function parse(argv: string[]) {
  // A first, lenient reading finds the command (an option's value is never taken for it).
  const { tokens } = parseArgs({
    args: argv,
    options: allOptions(),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const first = tokens.find((token) => token.kind === 'positional');
  const command = COMMAND_NAMES.find((name) => name === first?.value);
  const table = parseTable(command) as NonNullable<ParseArgsConfig['options']>;
  if (command) usageHint = `siegel ${command} --help`;
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = table[token.name];
    if (!spec) throw new UsageError(unknownOption(token.rawName, token.name, command, table));
    if (spec.type === 'string' && token.value === undefined) {
      const value = command ? COMMANDS[command].options[token.name]?.value : undefined;
      throw new UsageError(`\`--${token.name}\` needs a value: \`--${token.name} ${value ?? 'VALUE'}\``);
    }
    if (spec.type === 'boolean' && token.inlineValue)
      throw new UsageError(`\`--${token.name}\` takes no value, got \`${token.rawName}=${token.value}\``);
  }
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: table,
      strict: true,
      allowPositionals: true,
    });
    return { command, values: values as Values, positionals };
  } catch (error) {
    // What the checks above do not name (a value that looks like an option, say), in Node's words.
    throw new UsageError((error as Error).message);
  }
}

/** The values of any command's options (each command's table holds some of them). */
type Values = {
  [name: string]: string | boolean | string[] | undefined;
} & {
  help?: boolean;
  version?: boolean;
  'dry-run'?: boolean;
  all?: boolean;
  verbose?: boolean;
  json?: boolean;
  'check-cloaking'?: boolean;
  site?: string;
  selector?: string;
  cache?: string;
  pubkey?: string;
  signer?: string;
  'max-page-bytes'?: string;
  'request-timeout'?: string;
  'total-timeout'?: string;
  'publish-timeout'?: string;
  'user-agent'?: string;
  relay?: string[];
  mirror?: string[];
  'allow-redirects-to'?: string[];
};

/** The message for an option the command does not take: whose it is, or what was likely meant. */
function unknownOption(
  raw: string,
  name: string,
  command: CommandName | undefined,
  table: NonNullable<ParseArgsConfig['options']>,
): string {
  const owners = COMMAND_NAMES.filter((other) => other !== command && name in COMMANDS[other].options);
  if (raw.startsWith('--') && owners.length > 0) return `\`--${name}\` is for ${owners.join(' and ')}`;
  // Without a command, any command's option is a likely meaning.
  const known = Object.keys(command ? table : allOptions());
  const near = raw.startsWith('--') ? closestName(name, known) : undefined;
  return `Unknown option \`${raw}\`${near ? ` (did you mean \`--${near}\`?)` : ''}`;
}

/**
 * Whether `verify`'s target is a URL: `http://` or `https://`. A string that only looks like one — another
 * or a misspelt scheme (`htp://`, `https:/`, `https//`) — is a usage error, not a directory of that name.
 * @throws {UsageError} for such a string.
 */
function isUrlTarget(target: string): boolean {
  if (/^https?:\/\//i.test(target)) return true;
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(target) || /^https?(:\/?(?!\/)|\/\/)/i.test(target))
    throw new UsageError(
      `\`${target}\` looks like a URL, but not an http:// or https:// one: verify takes a directory or an http(s) URL`,
    );
  return false;
}

async function main(argv: string[]): Promise<number> {
  const { command, values, positionals } = parse(argv);
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (command === undefined) {
    const [first, topic] = positionals;
    if (first !== undefined && first !== 'help')
      throw new UsageError(`Unknown command \`${first}\` (use sign, verify or publish)`);
    // `siegel help sign` is `siegel sign --help`.
    const named = COMMAND_NAMES.find((name) => name === topic);
    process.stdout.write(named ? commandHelp(named) : mainHelp());
    return first === undefined && !values.help ? EXIT.usage : EXIT.ok;
  }
  if (values.help) {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const [, target, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`Unexpected argument \`${extra[0]}\``);
  const env = loadEnv(process.cwd());
  // Everything printed passes toTerminalSafe: a remote string inside cannot drive the terminal.
  const logger = {
    info: (message: string) => process.stdout.write(`${toTerminalSafe(message)}\n`),
    warn: (message: string) => process.stderr.write(`${toTerminalSafe(message)}\n`),
    error: (message: string) => process.stderr.write(`${toTerminalSafe(message)}\n`),
  };
  // A bad `--relay`, `--mirror` or `--site` is named as the flag the user typed, in every command alike.
  if (values.relay !== undefined) parseRelays(values.relay, '--relay');
  if (values.mirror !== undefined) parseMirrors(values.mirror, '--mirror');
  if (values.site !== undefined) checkSiteUrl(values.site, '--site');
  const publishTimeout = values['publish-timeout'];
  const publishTimeoutMs =
    publishTimeout === undefined ? undefined : parseSeconds(publishTimeout, '--publish-timeout', true);
  const maxPageBytes =
    values['max-page-bytes'] === undefined
      ? undefined
      : parseByteSize(values['max-page-bytes'], '--max-page-bytes');
  if (command === 'sign') {
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
  const isUrl = isUrlTarget(target ?? '');
  for (const [name, spec] of Object.entries(COMMANDS.verify.options)) {
    if (values[name] === undefined) continue;
    if (spec.only === 'url' && !isUrl) throw new UsageError(`\`--${name}\` is for verify <url>`);
    if (spec.only === 'dir' && isUrl)
      throw new UsageError(
        `\`--${name}\` is for verify <dir>: a URL is checked at the address it is served at`,
      );
  }
  // A directory's pages are judged at the address they were signed for: --site, else SITE_URL.
  const site = isUrl ? undefined : (values.site ?? (env.SITE_URL?.trim() || undefined));
  if (site !== undefined && values.site === undefined) checkSiteUrl(site, 'SITE_URL');
  const requestTimeout = values['request-timeout'];
  const totalTimeout = values['total-timeout'];
  const report = await verifySite(target ?? 'dist', {
    ...(site !== undefined ? { site } : {}),
    ...(values.pubkey !== undefined ? { pubkey: values.pubkey } : {}),
    ...(values.signer !== undefined ? { signer: values.signer } : {}),
    ...(values.relay !== undefined ? { relays: values.relay } : {}),
    ...(values.selector !== undefined ? { selector: values.selector } : {}),
    ...(maxPageBytes !== undefined ? { maxPageBytes } : {}),
    ...(values['allow-redirects-to'] !== undefined ? { allowRedirectsTo: values['allow-redirects-to'] } : {}),
    ...(requestTimeout !== undefined
      ? { requestTimeoutMs: parseSeconds(requestTimeout, '--request-timeout') }
      : {}),
    ...(totalTimeout !== undefined ? { totalTimeoutMs: parseSeconds(totalTimeout, '--total-timeout') } : {}),
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

/** Seconds from an option, in milliseconds; 0 only where `zero` allows it. */
function parseSeconds(text: string, name: string, zero = false): number {
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds > 0 || (zero && seconds === 0)))
    throw new UsageError(
      `\`${name}\` must be a number of seconds ${zero ? '(0 or more)' : 'greater than 0'}, got \`${text}\``,
    );
  return Math.round(seconds * 1000);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof SiegelError && error.code === 'invalid_options')) {
      process.stderr.write(`${toTerminalSafe(error.message)}\nRun \`${usageHint}\` for usage.\n`);
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
