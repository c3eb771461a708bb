#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel-server` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet).
//
// It checks the Node version first (core's one check, in syntax any Node parses): the service is built on
// `node:sqlite`, and on an older Node importing it fails at link time, with ERR_UNKNOWN_BUILTIN_MODULE and a
// stack trace, before a line of ours runs.
import { cacheCompiledCode, requireNode } from '@siegel/core/require-node';

requireNode('siegel-server', new URL('../package.json', import.meta.url), ' (for node:sqlite)');
cacheCompiledCode();
await import('../dist/main.js');
