import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type StartedCommand, startCommand } from '../../integrations/support/run-command.js';
import { freePort } from '../../support/free-port.js';

const VERDACCIO = fileURLToPath(new URL('../../../node_modules/verdaccio/bin/verdaccio', import.meta.url));

/** A running Verdaccio: a real npm registry server on loopback. */
export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** An `.npmrc` that points npm at this registry and logs in as the test's publisher. */
  npmrc: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start Verdaccio with its storage in `dir`. `@siegel/*` exists only here (published by the test, never
 * fetched from elsewhere); every other package is proxied from npmjs.org, as a company registry does. What
 * it fetched stays fresh for the run (`maxage`, 2 min by default): the fresh projects share most of their
 * dependencies, and each asked npmjs.org for them again.
 */
export async function startRegistry(dir: string): Promise<Registry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  await mkdir(dir, { recursive: true });
  const config = join(dir, 'config.yaml');
  await writeFile(
    config,
    `storage: ${join(dir, 'storage')}
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
    max_users: 10
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
    maxage: 30m
    agent_options:
      keepAlive: true
      maxSockets: 40
packages:
  '@siegel/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
log: { type: stdout, format: pretty, level: warn }
`,
  );
  const server: StartedCommand = startCommand(
    process.execPath,
    [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`],
    {
      cwd: dir,
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ping = await fetch(`${url}-/ping`).catch(() => undefined);
    if (ping?.ok) break;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`Verdaccio did not answer within 30 s:\n${server.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // A user, as `npm adduser` creates one; its token publishes.
  const user = await fetch(`${url}-/user/org.couchdb.user:siegel-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'siegel-test',
      password: 'a-test-password-1',
      email: 'test@siegel.invalid',
    }),
  });
  const { token } = (await user.json()) as { token?: string };
  if (!user.ok || !token) throw new Error(`Verdaccio refused the test user: ${user.status}`);
  const npmrc = join(dir, 'publisher.npmrc');
  await writeFile(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { url, npmrc, output: () => server.output, stop: () => server.stop() };
}
