// The sign page's script, served at `/assets/sign.js`: shows what `POST /api/inspect` finds in a dropped
// file, then signs it with `POST /api/sign-image-v2`. Both take the token (kept for the tab in
// sessionStorage): the server reads uploads for token holders only.
// Text from the server is only ever set with `textContent` (code spans too: `sayWithCode`).
import { byId, wireFileDrop } from './file-drop.js';

/** The links of a signed file, as the sign and the inspect API answer them. */
interface FileUrls {
  file: string;
  static_page: string;
  event_page: string;
  verify: string;
  verify_api: string;
}

/** What this script reads of an API answer (an error answer has `error` and `message` only). */
interface Answer {
  error?: string;
  message?: string;
  urls?: FileUrls;
  file_name?: string;
  hash?: string;
  mime_type?: string;
  size_bytes?: number;
  dimensions?: { width: number; height: number };
  metadata?: { author: string; title: string | null };
  signable?: boolean;
  already_signed?: boolean;
}

const form = byId<HTMLFormElement>('sign-form');
const fileInput = byId<HTMLInputElement>('file');
const drop = byId('drop');
const tokenInput = byId<HTMLInputElement>('token');
const button = byId<HTMLButtonElement>('sign-button');
const message = byId('message');
let chosen: File | null = null;
/** A file was chosen before the token was entered: it is read once the token is there. */
let waitingForToken = false;
try {
  tokenInput.value = sessionStorage.getItem('siegel-sign-token') || '';
} catch {
  // Storage disabled: the token is typed each time.
}

// An absent text (a field missing from an answer) shows as nothing, as `textContent = undefined` does.
function show(id: string, text: string | undefined): void {
  byId(id).textContent = text ?? null;
}

function say(text: string | undefined, ok: boolean): void {
  sayWithCode(message, text ?? '');
  message.className = ok ? 'ok' : 'bad';
}

/**
 * Set `element`'s text to `text`, each span in a pair of backticks (the API's messages mark code so:
 * "set the PDF `/Author`") as a `<code>` element; an unpaired backtick stays. Text nodes only, never HTML:
 * the messages carry what the file says (its name, its author).
 */
function sayWithCode(element: HTMLElement, text: string): void {
  const spans = text.split('`');
  element.replaceChildren(
    ...spans.map((span, index) => {
      if (index % 2 === 0) return span;
      if (index === spans.length - 1) return `\`${span}`;
      const code = document.createElement('code');
      code.textContent = span;
      return code;
    }),
  );
}

function addLink(list: HTMLElement, id: string, label: string, href: string): void {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.id = id;
  link.href = href;
  link.textContent = `${label}: ${href}`;
  item.appendChild(link);
  list.appendChild(item);
}

/** The JSON answer, or a message naming the status when the body is not JSON. */
async function readAnswer(response: Response): Promise<Answer> {
  return response.json().catch(() => ({ message: `Unexpected answer (${response.status})` }));
}

async function inspect(file: File): Promise<void> {
  chosen = file;
  button.disabled = true;
  byId('result').hidden = true;
  const token = tokenInput.value.trim();
  waitingForToken = !token;
  if (!token) {
    byId('inspect').hidden = true;
    say('Enter the sign token first: the server reads files for token holders only.', false);
    tokenInput.focus();
    return;
  }
  say(`Reading ${file.name}…`, true);
  const body = new FormData();
  body.append('file', file, file.name);
  const response = await fetch('/api/inspect', {
    method: 'POST',
    body,
    headers: { Authorization: `Bearer ${token}` },
  });
  const data = await readAnswer(response);
  if (!response.ok) {
    byId('inspect').hidden = true;
    say(data.message || 'This file cannot be read.', false);
    return;
  }
  const { metadata, dimensions } = data as Required<Answer>;
  byId('inspect').hidden = false;
  show('file-name', data.file_name);
  show('file-author', metadata.author || '(none)');
  show('file-title', metadata.title || '(none)');
  show(
    'file-type',
    `${data.mime_type}, ${data.size_bytes} bytes${dimensions ? `, ${dimensions.width}×${dimensions.height}` : ''}`,
  );
  show('file-hash', data.hash);
  if (data.already_signed) {
    say('This file is already signed.', true);
    showLinks(data.urls as FileUrls, 'Already signed');
    return;
  }
  if (!data.signable) {
    say(data.message, false);
    return;
  }
  say('Ready to sign.', true);
  button.disabled = false;
}

function showLinks(urls: FileUrls, title: string): void {
  byId('result').hidden = false;
  show('result-title', title);
  const list = byId('result-links');
  list.textContent = '';
  addLink(list, 'link-file', 'The file', urls.file);
  addLink(list, 'link-page', 'Event page', urls.static_page);
  addLink(list, 'link-verify', 'Verify page', urls.event_page);
  addLink(list, 'link-api', 'Verify API', urls.verify_api);
}

wireFileDrop(fileInput, drop, inspect);
tokenInput.addEventListener('change', () => {
  if (chosen && waitingForToken) void inspect(chosen);
});
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!chosen) return;
  const token = tokenInput.value.trim();
  if (!token) {
    say('Enter the sign token first.', false);
    tokenInput.focus();
    return;
  }
  try {
    sessionStorage.setItem('siegel-sign-token', token);
  } catch {
    // Storage disabled: nothing to remember the token in.
  }
  button.disabled = true;
  say('Signing…', true);
  const body = new FormData();
  body.append('file', chosen, chosen.name);
  const response = await fetch('/api/sign-image-v2', {
    method: 'POST',
    body,
    headers: { Authorization: `Bearer ${token}` },
  });
  const data = await readAnswer(response);
  if (response.ok) {
    say('Signed.', true);
    showLinks(data.urls as FileUrls, 'Signed');
    return;
  }
  if (data.error === 'ALREADY_SIGNED' && data.urls) {
    say(data.message, true);
    showLinks(data.urls, 'Already signed');
    return;
  }
  say(data.message || `Signing failed (${response.status}).`, false);
  button.disabled = data.error === 'AUTHOR_REQUIRED';
});
