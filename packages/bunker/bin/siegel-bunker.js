#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel-bunker` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet). It checks the Node version first,
// with syntax any Node runs: on an older one the CLI would fail somewhere inside with a stack trace.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = engines.node.replace(/^>=\s*/, '');
const parts = (version) => version.split('.').map(Number);
const [major, minor] = parts(process.versions.node);
const [needMajor, needMinor = 0] = parts(needed);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(
    `siegel-bunker: needs Node ${needed} or newer; this is Node ${process.versions.node}. Install a current Node (https://nodejs.org) and run it again.\n`,
  );
  process.exit(1);
}
await import('../dist/cli.js');
