// Issue 21, acceptance 4: the address rule (which hosts are this machine, which are not the public internet)
// is one module, `net/address-policy.ts`, used by Node (`siegel verify`, NIP-05, relay URLs, the bunker
// client's cleartext warning) and bundled into the browser verify script (relay hints, NIP-05). It reads
// hosts as WHATWG URL does, so it is run here in both engines on one table: Node's URL and Chromium's must
// lead to the same answers. (Before, the browser copy said no to `*.localhost` and `::ffff:127.…`.)
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, isLocalHost, isLoopbackHost } from '../../packages/core/src/net/address-policy.js';
import { type LaunchedChromium, launchChromium } from '../support/chromium.js';

/** host → [loopback, not public]. */
const TABLE: Array<[string, boolean, boolean]> = [
  ['localhost', true, true],
  ['LOCALHOST.', true, true],
  ['app.localhost', true, true],
  ['a.b.localhost', true, true],
  ['127.0.0.1', true, true],
  ['127.8.9.10', true, true],
  ['127.1', true, true],
  ['0x7f.0.0.1', true, true],
  ['2130706433', true, true],
  ['::1', true, true],
  ['[::1]', true, true],
  ['::ffff:127.0.0.1', true, true],
  ['[::ffff:7f00:1]', true, true],
  ['0.0.0.0', false, true],
  ['::', false, true],
  ['10.0.0.1', false, true],
  ['172.16.5.4', false, true],
  ['192.168.1.1', false, true],
  ['100.64.0.1', false, true],
  ['169.254.169.254', false, true],
  ['fe80::1', false, true],
  ['[fe80::1%25eth0]', false, true],
  ['fc00::1', false, true],
  ['::ffff:10.0.0.1', false, true],
  ['::ffff:169.254.169.254', false, true],
  ['64:ff9b::127.0.0.1', false, true],
  ['example.com', false, false],
  ['localhost.example.com', false, false],
  ['127.0.0.1.nip.io', false, false],
  ['93.184.215.14', false, false],
  ['2606:4700::1111', false, false],
  ['', false, false],
];

let chromium: LaunchedChromium;
let bundle: string;

beforeAll(async () => {
  const result = await build({
    absWorkingDir: fileURLToPath(new URL('../../packages/core/', import.meta.url)),
    entryPoints: ['src/net/address-policy.ts'],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'addressPolicy',
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]?.text ?? '';
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
});

describe('one address rule for Node and the browser', () => {
  it('answers the table the same in Node and in Chromium, and as the table says', async () => {
    const node = TABLE.map(([host]) => [
      host,
      isLoopbackHost(host),
      isLocalHost(host),
      classifyAddress(host),
    ]);
    expect(node.map(([host, loopback, local]) => [host, loopback, local])).toEqual(TABLE);
    const tab = await chromium.context.newPage();
    await tab.setContent('<!doctype html><title>rule</title>');
    await tab.addScriptTag({ content: bundle });
    const browser = await tab.evaluate(
      (hosts) => {
        const policy = (
          globalThis as unknown as {
            addressPolicy: typeof import('../../packages/core/src/net/address-policy.js');
          }
        ).addressPolicy;
        return hosts.map((host) => [
          host,
          policy.isLoopbackHost(host),
          policy.isLocalHost(host),
          policy.classifyAddress(host),
        ]);
      },
      TABLE.map(([host]) => host),
    );
    await tab.close();
    expect(browser).toEqual(node);
  });
});
