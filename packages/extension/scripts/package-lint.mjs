// `web-ext lint` of a built extension directory (default: dist/unpacked/), through web-ext's API: the linter
// prints its JSON report ({ count, summary: { errors, warnings, notices }, errors, warnings, notices }) on
// stdout; the exit code is 1 when it found an error.
// addons.mozilla.org runs the same linter on upload; test/extension/package.test.ts requires 0 errors.
import { fileURLToPath } from 'node:url';
import webExt from 'web-ext';

const sourceDir = process.argv[2] ?? fileURLToPath(new URL('../dist/unpacked', import.meta.url));
const result = await webExt.cmd.lint(
  { sourceDir, output: 'json', metadata: false, pretty: false, warningsAsErrors: false, selfHosted: false },
  { shouldExitProgram: false },
);
process.exitCode = result.summary.errors > 0 ? 1 : 0;
