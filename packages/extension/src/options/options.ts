/**
 * The options page: the reader's relay list (default: core's `DEFAULT_RELAYS`), the pinned signer per site
 * (set and removed here) and the keys accepted per site. Everything is in `chrome.storage.local`.
 */
import { DEFAULT_RELAYS, parseRelays } from '@siegel/core/browser';
import { pinSigner, readSettings } from '../common/settings.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function render(): Promise<void> {
  const settings = await readSettings();
  byId<HTMLTextAreaElement>('relays').value = settings.relays.join('\n');
  const pins = byId('pins');
  pins.replaceChildren();
  for (const [origin, signer] of Object.entries(settings.pins)) {
    const row = document.createElement('tr');
    const site = document.createElement('td');
    site.textContent = origin;
    const who = document.createElement('td');
    who.textContent = signer;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = 'Remove';
    remove.addEventListener('click', async () => {
      await pinSigner(origin, undefined);
      await render();
    });
    const cell = document.createElement('td');
    cell.append(remove);
    row.append(site, who, cell);
    pins.append(row);
  }
  const known = byId('known');
  known.replaceChildren();
  for (const [origin, keys] of Object.entries(settings.known))
    for (const key of keys) {
      const li = document.createElement('li');
      li.textContent = `${origin}: ${key.pubkey} (since ${new Date(key.since).toLocaleString()})`;
      known.append(li);
    }
}

byId('save-relays').addEventListener('click', async () => {
  const lines = byId<HTMLTextAreaElement>('relays').value.split(/\s+/).filter(Boolean);
  // The reader's own list: valid relay URLs only (`wss://`, or `ws://` on a loopback host), as `--relay`.
  let relays: string[];
  try {
    relays = parseRelays(lines, 'your relays');
  } catch (error) {
    byId('relays-status').textContent = (error as Error).message;
    return;
  }
  await chrome.storage.local.set({ relays });
  byId('relays-status').textContent = `Saved ${relays.length} relay${relays.length === 1 ? '' : 's'}.`;
  await render();
});
byId('reset-relays').addEventListener('click', async () => {
  await chrome.storage.local.set({ relays: DEFAULT_RELAYS });
  await render();
});
byId('add-pin').addEventListener('click', async () => {
  const raw = byId<HTMLInputElement>('pin-origin').value.trim();
  const signer = byId<HTMLInputElement>('pin-signer').value.trim();
  let origin: string;
  try {
    origin = new URL(raw).origin;
  } catch {
    byId('pin-status').textContent = `\`${raw}\` is not a site address.`;
    return;
  }
  if (!signer) return;
  await pinSigner(origin, signer);
  byId('pin-status').textContent = `Pinned for ${origin}.`;
  await render();
});

void render();
