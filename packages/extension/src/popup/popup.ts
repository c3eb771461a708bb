/**
 * The popup: one tab's check as the background recorded it — the state, who signed (npub, NIP-05, pinned
 * or first seen), when, for which URL and title, the coverage sentence, every problem with its code, the
 * text hidden in the tab and a readable diff of what changed, the signed content as inert text — and the
 * reader's choices: accept or pin the key, save the evidence. Everything from a page is set as text.
 */
import type { CheckRecord } from '../common/messages.js';
import { STATES } from '../common/states.js';

const byId = (id: string) => document.getElementById(id) as HTMLElement;
const text = (id: string, value: string) => {
  byId(id).textContent = value;
};

function item(list: HTMLElement, ...parts: Array<string | Node>): void {
  const li = document.createElement('li');
  li.append(...parts);
  list.append(li);
}

const code = (value: string) => {
  const element = document.createElement('code');
  element.textContent = value;
  return element;
};

function show(record: CheckRecord | undefined): void {
  const heading = byId('state');
  if (!record) {
    heading.dataset.state = 'none';
    text('state', 'No signed page');
    text('meaning', 'This tab carries no Siegel signature block, or its check has not finished.');
    return;
  }
  heading.dataset.state = record.state;
  text('state', STATES[record.state].word);
  text('meaning', STATES[record.state].meaning);
  if (record.signer) {
    byId('signer-facts').hidden = false;
    text('signer-npub', record.signer.npub);
    if (record.signer.nip05)
      text(
        'signer-nip05',
        `${record.signer.nip05.name} (${record.signer.nip05.confirmed ? 'confirmed by its domain' : 'not confirmed'})`,
      );
    const since =
      record.signer.since === undefined ? '' : ` since ${new Date(record.signer.since).toLocaleString()}`;
    text(
      'signer-trust',
      record.signer.trust === 'pinned'
        ? 'pinned for this site'
        : record.signer.trust === 'accepted'
          ? `accepted for this site${since}`
          : 'new: not yet accepted for this site',
    );
    byId('accept').hidden = record.signer.trust !== 'new';
    byId('pin').hidden = record.signer.trust === 'pinned';
  }
  if (record.event) {
    text(
      'signed-at',
      new Date(record.event.created_at * 1000)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC'),
    );
    text('signed-url', record.event.url ?? '(none)');
    text('signed-title', record.event.title ?? '(none)');
  }
  if (record.coverage) text('coverage', record.coverage);
  const problems = byId('problems');
  problems.replaceChildren();
  for (const problem of record.problems)
    item(problems, code(problem.code), ` (${problem.severity}): ${problem.message}`);
  byId('problems-section').hidden = record.problems.length === 0;
  const hidden = byId('hidden');
  hidden.replaceChildren();
  for (const part of record.live?.hidden ?? []) item(hidden, part);
  byId('hidden-section').hidden = (record.live?.hidden.length ?? 0) === 0;
  const diff = byId('diff');
  diff.replaceChildren();
  for (const difference of record.live?.differences ?? []) {
    const title = document.createElement('h3');
    title.textContent = difference.what;
    const served = document.createElement('pre');
    served.className = 'served';
    served.textContent = `served: ${difference.served}`;
    const live = document.createElement('pre');
    live.className = 'live';
    live.textContent = `in this tab: ${difference.live}`;
    diff.append(title, served, live);
  }
  byId('diff-section').hidden = (record.live?.differences.length ?? 0) === 0;
  if (record.content !== undefined) {
    byId('content-section').hidden = false;
    text('content', record.content);
  }
  byId('evidence').hidden = false;
}

async function main(): Promise<void> {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  // A test (or a reader's bookmark) may name the tab: `popup.html?tab=ID`.
  const named = Number(new URLSearchParams(location.search).get('tab'));
  const tabId = Number.isInteger(named) && named > 0 ? named : tab?.id;
  if (tabId === undefined) return show(undefined);
  const ask = (type: string) =>
    chrome.runtime.sendMessage({ type, tabId }) as Promise<CheckRecord | undefined>;
  show(await ask('siegel:record'));
  byId('accept').addEventListener('click', async () => show(await ask('siegel:accept')));
  byId('pin').addEventListener('click', async () => show(await ask('siegel:pin')));
  byId('evidence').addEventListener('click', async () => {
    const evidence = await chrome.runtime.sendMessage({ type: 'siegel:evidence', tabId });
    if (evidence === undefined || evidence === null) {
      byId('evidence').textContent = 'Nothing to save: the page was not fetched';
      return;
    }
    const blob = new Blob([JSON.stringify(evidence, null, 2)], { type: 'application/json' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `siegel-evidence-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    link.click();
  });
  document.body.dataset.ready = 'true';
}

void main();
