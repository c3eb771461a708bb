#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet). It checks the Node version
// first (require-node.js), then loads the CLI.
import { cacheCompiledCode, requireNode } from './require-node.js';

requireNode('siegel', new URL('../package.json', import.meta.url));
cacheCompiledCode();
await import('../dist/cli/cli.js');
