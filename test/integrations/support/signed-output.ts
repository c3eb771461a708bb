import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { analyzePage, readSignatureBlock } from '@siegel/core';
import { type Event, verifyEvent } from 'nostr-tools/pure';
import { listFiles, REPO_ROOT } from './example-project.js';
import { type CommandResult, runCommand } from './run-command.js';

/** One HTML page of a build output and what a reader finds in it. */
export interface PageCheck {
  path: string;
  /** The page has the signed element. */
  hasMain: boolean;
  /** sha256 of `main.innerHTML`, recomputed. */
  hash: string | undefined;
  block: ReturnType<typeof readSignatureBlock>;
  /** The event the block names, from `verify/{id}.json`. */
  event: Event | undefined;
  /** The page's bytes with the signature block cut out. */
  withoutBlock: string;
  raw: string;
}

/** The site's pages: every `*.html` outside `verify/`. */
export async function listPages(outDir: string): Promise<string[]> {
  return (await listFiles(outDir)).filter((path) => path.endsWith('.html') && !path.startsWith('verify/'));
}

/** Read every page of `outDir` with its block, event and recomputed hash. */
export async function checkPages(outDir: string): Promise<PageCheck[]> {
  const checks: PageCheck[] = [];
  for (const path of await listPages(outDir)) {
    const raw = await readFile(join(outDir, path), 'utf8');
    const analysis = analyzePage(raw);
    const block = readSignatureBlock(raw);
    let event: Event | undefined;
    if (block?.eventId) {
      try {
        event = JSON.parse(await readFile(join(outDir, 'verify', `${block.eventId}.json`), 'utf8')) as Event;
      } catch {
        event = undefined;
      }
    }
    const existing = analysis.existingBlock;
    // The block is written as its own line: markers and content, then one line break.
    const end = existing && raw[existing.end] === '\n' ? existing.end + 1 : existing?.end;
    const withoutBlock = existing ? raw.slice(0, existing.start) + raw.slice(end) : raw;
    checks.push({
      path,
      hasMain: analysis.hash !== undefined,
      hash: analysis.hash,
      block,
      event,
      withoutBlock,
      raw,
    });
  }
  return checks;
}

/** Why `check` is not a correctly signed page by `pubkey` (empty when it is). */
export function signatureProblems(check: PageCheck, pubkey: string): string[] {
  const problems: string[] = [];
  if (!check.block) return [`${check.path}: no signature block`];
  if (check.block.hash !== check.hash)
    problems.push(`${check.path}: block hash ${check.block.hash} ≠ page hash ${check.hash}`);
  if (check.block.pubkey !== pubkey) problems.push(`${check.path}: signed by ${check.block.pubkey}`);
  if (!check.event) return [...problems, `${check.path}: no verify/${check.block.eventId}.json`];
  if (!verifyEvent(check.event)) problems.push(`${check.path}: event signature invalid`);
  if (check.event.id !== check.block.eventId) problems.push(`${check.path}: event id mismatch`);
  const x = check.event.tags.find((tag) => tag[0] === 'x')?.[1];
  if (x !== check.hash) problems.push(`${check.path}: event x tag ${x} ≠ page hash`);
  return problems;
}

/** Run `siegel verify <target>` (core's CLI, built output) and return its exit code and output. */
export function runSiegelCli(args: string[], cwd: string): Promise<CommandResult> {
  return runCommand(process.execPath, [join(REPO_ROOT, 'packages/core/bin/siegel.js'), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** Run `npm run <script>` in `cwd` (an example's own script), without the caller's bunker settings. */
export function runNpmScript(cwd: string, script: string): Promise<CommandResult> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BUNKER_')));
  return runCommand('npm', ['run', script], { cwd, env: { ...env, NO_COLOR: '1' } });
}
