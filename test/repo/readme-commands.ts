// Issue 39, acceptance 3: every command block (```sh) of the READMEs, and the test that runs it — read from
// the README itself (`extractedBy`: the test calls `readmeBlock` on that file, so the README and the test
// cannot drift apart), or the same commands done by a test (`mirroredBy`, with a string that test holds) —
// or why no test can run it here. test/repo/docs.test.ts checks that every block has exactly one entry and
// every entry a block, and that each named test exists and does what its entry says.

/** One ```sh block of a README, by its file and the start of its first command (comments skipped). */
export type ReadmeCommandBlock = { file: string; first: string; note?: string } & (
  | { extractedBy: string }
  | { mirroredBy: string; marker: string }
  | { notRunnable: string }
);

const ENV_FILE =
  'the lines of a `.env` file, not commands; the integration tests write such files (`bunkerEnv`)';

export const README_COMMANDS: ReadmeCommandBlock[] = [
  {
    file: 'README.md',
    first: 'npm run demo',
    extractedBy: 'test/integrations/demo.test.ts',
    note: 'its second line, `npm test`, is the suite itself: `.ci/run` runs it on a clean clone',
  },
  { file: 'README.md', first: 'BUNKER_API_TOKEN=…', notRunnable: ENV_FILE },
  {
    file: 'README.md',
    first: 'npx astro add @siegel/astro',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: "'astro', 'add', '@siegel/astro'",
  },
  ...['astro-site', 'eleventy-site', 'vite-site', 'vitepress-site'].map(
    (example): ReadmeCommandBlock => ({
      file: `examples/${example}/README.md`,
      first: 'cp .env.example .env',
      mirroredBy: 'test/integrations/conformance.test.ts',
      marker: 'writeEnv(bunkerEnv',
      note: "each example's build with a `.env` naming the test's bunker",
    }),
  ),
  {
    file: 'examples/image-optimizer/README.md',
    first: 'npm run bunker:dev',
    mirroredBy: 'test/examples/image-optimizer.test.ts',
    marker: 'startServer(',
    note: 'a development bunker and the server with a sign token, started by the test',
  },
  {
    file: 'examples/image-optimizer/README.md',
    first: 'export SIEGEL_SERVER_URL=',
    mirroredBy: 'test/examples/image-optimizer.test.ts',
    marker: 'cli.mjs',
  },
  {
    file: 'examples/image-optimizer/README.md',
    first: 'PORT=0 node web.mjs',
    mirroredBy: 'test/examples/image-optimizer.test.ts',
    marker: 'web.mjs',
  },
  {
    file: 'packages/astro/README.md',
    first: 'npx astro add @siegel/astro',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: "'astro', 'add', '@siegel/astro'",
  },
  { file: 'packages/astro/README.md', first: 'BUNKER_API_TOKEN=…', notRunnable: ENV_FILE },
  {
    file: 'packages/bunker/README.md',
    first: 'npm install @siegel/bunker',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: '@siegel/bunker',
  },
  {
    file: 'packages/bunker/README.md',
    first: 'export BUNKER_API_TOKEN=',
    extractedBy: 'test/bunker/readme-start.test.ts',
  },
  {
    file: 'packages/bunker/README.md',
    first: 'curl -s http://127.0.0.1:7777/api/keys/default/sign',
    mirroredBy: 'test/bunker/api.test.ts',
    marker: '/api/keys/default/sign',
  },
  {
    file: 'packages/bunker/README.md',
    first: 'siegel-bunker start --relay wss://relay.example.com',
    mirroredBy: 'test/nostr/bunker-flood.test.ts',
    marker: '--relay',
    note: 'on a local relay (`ws://` on loopback), as no test reaches a public one',
  },
  {
    file: 'packages/bunker/README.md',
    first: 'curl -s -X POST http://127.0.0.1:7777/api/nip46/uri',
    mirroredBy: 'test/nostr/bunker-flood.test.ts',
    marker: 'nip46/uri',
  },
  {
    file: 'packages/client/README.md',
    first: 'npm install @siegel/client',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: '@siegel/client',
  },
  {
    file: 'packages/core/README.md',
    first: 'npm install @siegel/core',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: '@siegel/core',
  },
  { file: 'packages/core/README.md', first: 'BUNKER_API_TOKEN=…', notRunnable: ENV_FILE },
  { file: 'packages/core/README.md', first: 'BUNKER_URL=bunker://', notRunnable: ENV_FILE },
  {
    file: 'packages/core/README.md',
    first: '$ npx siegel sign dist',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: "'siegel', 'verify'",
    note: 'a transcript: the registry test runs `npx siegel` in fresh projects',
  },
  {
    file: 'packages/core/README.md',
    first: 'npm run bench:sign-site',
    mirroredBy: 'test/repo/benches.test.ts',
    marker: 'bench',
    note: 'every bench once at a tiny size; full size is run on demand',
  },
  {
    file: 'packages/eleventy/README.md',
    first: 'npm install -D @siegel/eleventy',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: '@siegel/eleventy',
  },
  { file: 'packages/eleventy/README.md', first: 'BUNKER_API_TOKEN=…', notRunnable: ENV_FILE },
  {
    file: 'packages/vite/README.md',
    first: 'npm install -D @siegel/vite',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: '@siegel/vite',
  },
  { file: 'packages/vite/README.md', first: 'BUNKER_API_TOKEN=…', notRunnable: ENV_FILE },
  {
    file: 'server/README.md',
    first: 'npm install @siegel/server',
    mirroredBy: 'test/registry/registry.test.ts',
    marker: 'siegel-server',
  },
  {
    file: 'server/README.md',
    first: 'npm ci',
    mirroredBy: 'test/server/server.test.ts',
    marker: 'dev: true',
    note: '`npm run server -- --dev` is `tsc --build server` and `node server/dist/main.js --dev`, which the test starts',
  },
  {
    file: 'server/README.md',
    first: 'curl -s -H "Authorization: Bearer $TOKEN" -F file=@photo.jpg',
    mirroredBy: 'test/server/server.test.ts',
    marker: '/api/sign-image-v2',
  },
  {
    file: 'server/README.md',
    first: 'sudo apt-get install postgresql',
    mirroredBy: 'test/server/scale-out.test.ts',
    marker: 'DATABASE_URL',
    note: 'two instances on a private PostgreSQL cluster (initdb, pg_ctl) and s3rver; apt-get is .ci/run’s',
  },
];
