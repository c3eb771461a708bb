#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel-bunker` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet). It checks the Node version first
// (core's one check, in syntax any Node runs), then loads the CLI.
import { cacheCompiledCode, requireNode } from '@siegel/core/require-node';

requireNode('siegel-bunker', new URL('../package.json', import.meta.url));
cacheCompiledCode();
await import('../dist/cli.js');
