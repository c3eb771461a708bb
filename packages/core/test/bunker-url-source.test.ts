// Issue 12, "the bunker address message names where the value came from": `siegel sign` against a bunker
// address where nothing listens says whether BUNKER_URL came from the environment, from `.env` (its path),
// or is the default. The real CLI, in a fixture project; a closed loopback port (bound, then released).
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, runCli } from './support/run-cli.js';
import { SITE, useFixtureProjects } from './support/site-fixture.js';

const projects = useFixtureProjects();

/** A loopback address where nothing listens: a port the system handed out, released again. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** `siegel sign --site …` in `root`, with exactly `env` (plus PATH): nothing leaks in from this process. */
function sign(root: string, env: Record<string, string>): Promise<CliResult> {
  return runCli(['sign', '--site', SITE], root, { BUNKER_API_TOKEN: 'token-of-the-test', ...env });
}

/** The run failed with the unreachable-bunker message for `url`; returns its lines after the first. */
function unreachableDetail(result: CliResult, url: string): string[] {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.trimEnd().split('\n');
  const first = lines.findIndex((line) => line.startsWith('Bunker not reachable'));
  expect(first, result.stderr).toBeGreaterThanOrEqual(0);
  expect(lines[first]).toBe(`Bunker not reachable at BUNKER_URL \`${url}\` (ECONNREFUSED). Is it running?`);
  return lines.slice(first + 1);
}

describe('the unreachable-bunker message names where BUNKER_URL came from (siegel sign)', () => {
  it('from the environment, even when `.env` sets another address', async () => {
    const project = await projects.createProject();
    const url = await closedPortUrl();
    await writeFile(join(project.root, '.env'), 'BUNKER_URL=http://127.0.0.1:9\n');
    const result = await sign(project.root, { BUNKER_URL: url });
    expect(unreachableDetail(result, url)).toEqual([
      'BUNKER_URL is set in the environment (which wins over `.env`).',
    ]);
  });

  it('from `.env` in the project root, naming the file', async () => {
    const project = await projects.createProject();
    const url = await closedPortUrl();
    await writeFile(join(project.root, '.env'), `BUNKER_URL=${url}/\n`);
    const result = await sign(project.root, {});
    expect(unreachableDetail(result, url)).toEqual([
      `BUNKER_URL is set in \`${join(project.root, '.env')}\`.`,
    ]);
  });

  it('the default, when neither sets it (also with a blank BUNKER_URL in the environment)', async () => {
    const project = await projects.createProject();
    for (const env of [{}, { BUNKER_URL: '  ' }] as Record<string, string>[]) {
      const result = await sign(project.root, env);
      expect(unreachableDetail(result, 'http://localhost:7777'), JSON.stringify(env)).toEqual([
        `BUNKER_URL is not set (neither in the environment nor in \`${join(project.root, '.env')}\`): this is the default.`,
      ]);
    }
  });
});
