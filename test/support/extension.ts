/// <reference path="../../packages/extension/src/chrome.d.ts" />
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { eventually } from './eventually.ts';
import { stopGroups } from './process-group.ts';

/** The unpacked build (`npm run build -w @siegel/extension`). */
export const EXTENSION_DIR = fileURLToPath(
  new URL('../../packages/extension/dist/unpacked', import.meta.url),
);

/** The words a tab's action title starts with once its check is over. */
export const FINAL_STATES = ['VALID', 'INVALID', 'CHANGED', 'NEW SIGNER', 'UNVERIFIED'] as const;
export type FinalState = (typeof FINAL_STATES)[number];

/** A Chromium of its own with the unpacked extension loaded. */
export interface ExtensionBrowser {
  context: BrowserContext;
  /** The extension's background service worker. */
  worker: Worker;
  /** The extension's id (`chrome-extension://ID/`). */
  id: string;
  /** The tab id of `page` (by its URL, as the extension sees it). */
  tabIdOf(page: Page): Promise<number>;
  /** The action's title for `page`'s tab. */
  titleOf(page: Page): Promise<string>;
  /**
   * Wait until `page`'s tab shows a final state and return its title. `not` skips a state still shown
   * from before (a page navigated in place, re-checked).
   */
  stateOf(page: Page, options?: { not?: string; ms?: number }): Promise<string>;
  /** Set the reader's relays (the options page's list) in the extension's storage. */
  setRelays(relays: string[]): Promise<void>;
  close(): Promise<void>;
}

/** The process group of the Chromium started with `userDataDir` (its command line names it). */
async function browserGroup(userDataDir: string): Promise<number | undefined> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = await readFile(`/proc/${entry}/cmdline`, 'latin1');
      if (!command.includes(`--user-data-dir=${userDataDir}`)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'latin1');
      // Field 5 (pgrp), after the command's closing parenthesis.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    } catch {}
  }
  return undefined;
}

/**
 * Debian's Chromium (`--headless=new`, which runs extensions) with a fresh profile and only the unpacked
 * extension loaded (`dir`: the build's dist/unpacked/, or the store zip unpacked); its worker from `context.serviceWorkers()`. `close` closes the context and stops the
 * browser's whole process group (no leftover Chromium processes).
 */
export async function launchWithExtension(dir: string = EXTENSION_DIR): Promise<ExtensionBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'siegel-extension-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: false,
    args: [
      ...CHROMIUM_ARGS,
      '--headless=new',
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
    ],
  });
  const pgid = await browserGroup(userDataDir);
  const worker =
    context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  const id = new URL(worker.url()).host;
  const tabIdOf = async (page: Page) => {
    const url = page.url();
    let tabId: number | undefined;
    await eventually(
      async () => {
        tabId = await worker.evaluate(async (wanted) => {
          // The newest tab at that address (tab ids only grow): a tab a failed test left open is older.
          const ids = (await chrome.tabs.query({}))
            .filter((tab) => tab.url === wanted && tab.id !== undefined)
            .map((tab) => tab.id as number);
          return ids.length === 0 ? undefined : Math.max(...ids);
        }, url);
        return tabId !== undefined;
      },
      10_000,
      50,
    );
    return tabId as number;
  };
  const titleOf = async (page: Page) => {
    const tabId = await tabIdOf(page);
    return worker.evaluate((tab) => chrome.action.getTitle({ tabId: tab }), tabId);
  };
  return {
    context,
    worker,
    id,
    tabIdOf,
    titleOf,
    async stateOf(page, options = {}) {
      let title = '';
      await eventually(
        async () => {
          title = await titleOf(page);
          const final = FINAL_STATES.some((state) => title.startsWith(`${state} `));
          return final && (options.not === undefined || !title.startsWith(`${options.not} `));
        },
        options.ms ?? 20_000,
        50,
      ).catch((error: Error) => {
        throw new Error(`${error.message}: the tab's title is still “${title}”`);
      });
      return title;
    },
    async setRelays(relays) {
      await worker.evaluate((list) => chrome.storage.local.set({ relays: list }), relays);
    },
    async close() {
      await context.close().catch(() => undefined);
      if (pgid !== undefined) await stopGroups([pgid], 2_000);
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A loopback WebSocket proxy in front of a relay that records what clients send. */
export interface RelayTap {
  /** `ws://127.0.0.1:PORT` */
  url: string;
  /** Every message a client sent, in order. */
  messages: string[];
  close(): Promise<void>;
}

/**
 * Put a {@link RelayTap} in front of the relay at `to`: every frame passes both ways unchanged; what the
 * clients send is recorded, so a test can tell which checks asked the relay anything.
 */
export async function tapRelay(to: string): Promise<RelayTap> {
  const { WebSocket, WebSocketServer } = await import('ws');
  const messages: string[] = [];
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket) => {
    const upstream = new WebSocket(to);
    const pending: string[] = [];
    upstream.on('open', () => {
      for (const message of pending.splice(0)) upstream.send(message);
    });
    upstream.on('message', (data) => socket.send(data.toString()));
    upstream.on('close', () => socket.close());
    upstream.on('error', () => socket.close());
    socket.on('message', (data) => {
      const text = data.toString();
      messages.push(text);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else pending.push(text);
    });
    socket.on('close', () => upstream.close());
    socket.on('error', () => upstream.close());
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    messages,
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
