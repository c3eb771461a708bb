#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet). It checks the Node version
// first (require-node.js), starts again with the V8 flags and the environment `siegel` runs with
// (SIEGEL_NODE_FLAGS, SIEGEL_NODE_ENV: a small young generation, an old one that grows by half, two malloc
// arenas — for memory), then loads the CLI.
import {
  cacheCompiledCode,
  requireNode,
  restartWithNodeFlags,
  SIEGEL_NODE_ENV,
  SIEGEL_NODE_FLAGS,
} from './require-node.js';

requireNode('siegel', new URL('../package.json', import.meta.url));
restartWithNodeFlags(SIEGEL_NODE_FLAGS, SIEGEL_NODE_ENV);
cacheCompiledCode();
await import('../dist/cli/cli.js');
