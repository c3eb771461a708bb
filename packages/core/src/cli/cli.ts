#!/usr/bin/env node
// cli/ owns the `siegel` command: arguments, `.env` of the current directory, exit codes (0 success,
// 1 signing or verification failed, 2 usage error) and where messages go. It only calls the user API
// (`signSite`, `verifySite`), so everything the CLI does, a program can do too. Each command's options and
// help are one table in commands.ts; this file reads the arguments against it. text/terminal-text.ts makes
// remote words safe to print; every CLI of the repo and the places that quote remote strings use it.
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SiegelError } from '../errors.js';
import { isSiteId } from '../manifest/site-manifest.js';
import { parseBlossomServers } from '../net/blossom.js';
import { parseRelays, readRelaysFromEnv } from '../nostr/relays.js';
import { loadEnv } from '../options/env.js';
import { SITE_ID_RULE } from '../options/manifest-options.js';
import { parseMirrors } from '../options/options.js';
import { checkSiteUrl } from '../page/page-event.js';
import { parseByteSize } from '../text/byte-size.js';
import { closestName } from '../text/closest-name.js';
import { toTerminalSafe } from '../text/terminal-text.js';
import {
  COMMAND_NAMES,
  COMMANDS,
  COMMON,
  type CommandName,
  commandHelp,
  EVIDENCE_OPTIONS,
  mainHelp,
  type OptionSpec,
} from './commands.js';

// Each command's module is imported when that command runs (`await import`): `--version`, `--help` and a
// usage error then load only the argument checks, not the signing, publishing and verifying pipelines
// (measured: 337 modules for `--version` before).

/** Exit codes, documented in the README. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

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
  blossom?: string[];
  'site-id'?: string;
  'root-site'?: boolean;
  mark?: boolean;
  'mark-server'?: string;
  'mark-extension'?: string;
  'allow-redirects-to'?: string[];
  evidence?: string;
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

/** `--mark`, `--mark-server`, `--mark-extension` as `signSite`'s `mark` (none of them: no mark). */
function markOption(values: { mark?: boolean; 'mark-server'?: string; 'mark-extension'?: string }) {
  const server = values['mark-server'];
  const extension = values['mark-extension'];
  if (server === undefined && extension === undefined) return values.mark ? { mark: true } : {};
  return {
    mark: { ...(server !== undefined ? { server } : {}), ...(extension !== undefined ? { extension } : {}) },
  };
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
  if (values.blossom !== undefined) parseBlossomServers(values.blossom, '--blossom');
  if (values.mirror !== undefined) parseMirrors(values.mirror, '--mirror');
  if (values.site !== undefined) checkSiteUrl(values.site, '--site');
  const siteId = values['site-id'];
  if (siteId !== undefined && !isSiteId(siteId))
    throw new SiegelError('invalid_options', `\`--site-id\` must be ${SITE_ID_RULE}, got \`${siteId}\``);
  const publishTimeout = values['publish-timeout'];
  const publishTimeoutMs =
    publishTimeout === undefined ? undefined : parseSeconds(publishTimeout, '--publish-timeout', true);
  const maxPageBytes =
    values['max-page-bytes'] === undefined
      ? undefined
      : parseByteSize(values['max-page-bytes'], '--max-page-bytes');
  if (command === 'sign') {
    const { signSite } = await import('../pipeline/sign-site.js');
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
      ...(siteId !== undefined ? { siteId } : {}),
      ...(values['root-site'] ? { rootSite: true } : {}),
      ...markOption(values),
      ...(maxPageBytes !== undefined ? { maxPageBytes } : {}),
      ...(publishTimeoutMs !== undefined ? { publishTimeoutMs } : {}),
    });
    return summary.failed > 0 ? EXIT.failure : EXIT.ok;
  }
  if (command === 'publish') {
    const { publishSite } = await import('../pipeline/publish-site.js');
    const report = await publishSite(target ?? 'dist', {
      env,
      logger,
      all: values.all ?? false,
      ...(values.cache !== undefined ? { cacheFile: values.cache } : {}),
      ...(values.relay !== undefined ? { relays: values.relay } : {}),
      ...(values.blossom !== undefined ? { blossom: values.blossom } : {}),
      ...(publishTimeoutMs !== undefined ? { timeoutMs: publishTimeoutMs } : {}),
    });
    return report.unreached > 0 || (report.blossom?.failed ?? 0) > 0 ? EXIT.failure : EXIT.ok;
  }
  if (values.evidence !== undefined) {
    const other = Object.keys(values).find(
      (name) => values[name] !== undefined && !(EVIDENCE_OPTIONS as readonly string[]).includes(name),
    );
    if (target !== undefined)
      throw new UsageError('`--evidence` takes no directory or URL: it checks the file alone');
    if (other !== undefined)
      throw new UsageError(
        `\`--${other}\` is not for \`--evidence\`: evidence is re-checked offline, as recorded`,
      );
    const { verifyEvidenceFile } = await import('./verify-evidence.js');
    const ok = await verifyEvidenceFile(
      values.evidence,
      { json: values.json ?? false, verbose: values.verbose ?? false },
      logger.info,
    );
    return ok ? EXIT.ok : EXIT.failure;
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
  const { formatVerifyReport, formatVerifyReportJson, verifySite } = await import('../verify/verify-site.js');
  const report = await verifySite(target ?? 'dist', {
    ...(site !== undefined ? { site } : {}),
    ...(values.pubkey !== undefined ? { pubkey: values.pubkey } : {}),
    ...(values.signer !== undefined ? { signer: values.signer } : {}),
    // The verifier's own relays: what the site's currency is read from (and missing events).
    relays: values.relay ?? readRelaysFromEnv(env.SIEGEL_RELAYS),
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
