#!/usr/bin/env node
// A committed launcher, so npm can link the `siegel-server` command at install time, before `npm run build`
// has written dist/ (npm skips bin links whose target does not exist yet).
import '../dist/main.js';
