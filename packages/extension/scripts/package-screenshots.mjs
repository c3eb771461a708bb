// The popup's screenshots for the README (docs/popup-valid.png, docs/popup-invalid.png): the built extension
// in Debian's Chromium (test/support/extension.ts), the verdict case site signed on a loopback static
// server, a relay process as the reader's relay; each case page opened in a tab, its final state awaited,
// and the popup for that tab (`popup.html?tab=ID`) captured at a popup's width. Run after the build:
//
//   npm run build -w @siegel/extension && npm run screenshots -w @siegel/extension
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchWithExtension } from '../../../test/support/extension.ts';
import { startRelay } from '../../../test/support/relay-process.ts';
import { serveDirectory } from '../../../test/support/static-server.ts';
import { buildCaseSite } from '../../../test/support/verdict-cases.ts';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
await mkdir(docs, { recursive: true });
const root = await mkdtemp(join(tmpdir(), 'siegel-screenshots-'));
const relay = await startRelay();
const site = await serveDirectory(root);
await buildCaseSite(root, site.url, relay.url);
const browser = await launchWithExtension();
try {
  await browser.setRelays([relay.url]);
  for (const [page, name] of [
    ['valid.html', 'popup-valid.png'],
    ['edited.html', 'popup-invalid.png'],
  ]) {
    const tab = await browser.context.newPage();
    await tab.goto(`${site.url}${page}`);
    const state = await browser.stateOf(tab);
    const popup = await browser.context.newPage();
    await popup.setViewportSize({ width: 420, height: 640 });
    await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${await browser.tabIdOf(tab)}`);
    await popup.waitForLoadState('networkidle');
    await popup.screenshot({ path: join(docs, name), fullPage: true });
    console.log(`${name}: ${state.split(' ')[0]} (${page})`);
    await popup.close();
    await tab.close();
  }
} finally {
  await browser.close();
  await relay.stop();
  await site.close();
  await rm(root, { recursive: true, force: true });
}
