#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel-server` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet).
//
// It checks the Node version first, in syntax any Node parses: the service is built on `node:sqlite`, and
// on an older Node importing it fails at link time, with ERR_UNKNOWN_BUILTIN_MODULE and a stack trace,
// before a line of ours runs. The version needed is the one `engines` in package.json names.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = /(\d+)\.(\d+)/.exec(engines.node) ?? ['', '22', '13'];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < Number(needed[1]) || (major === Number(needed[1]) && minor < Number(needed[2]))) {
  process.stderr.write(
    `siegel-server needs Node ${needed[1]}.${needed[2]} or newer (for node:sqlite); this is Node ${process.versions.node} (${process.execPath})\n`,
  );
  process.exit(1);
}
await import('../dist/main.js');
