// The sign page's script, served at `/assets/sign.js`: shows what `POST /api/inspect` finds in a dropped
// file, then signs it with `POST /api/sign-image-v2` — both through `@siegel/client` (bundled in: its calls,
// answer types and errors are the ones every other user of the API has). Both take the token (kept for the
// tab in sessionStorage): the server reads uploads for token holders only.
// Text from the server is only ever set with `textContent` (code spans too: `sayWithCode`).
import {
  createClient,
  type FileUrls,
  type InspectResult,
  SiegelApiError,
  type SiegelClient,
} from '@siegel/client';
import { byId, wireFileDrop } from './file-drop.js';

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

/**
 * A client of this server with `token`. No retries: a person is waiting, and clicks again. An error here
 * (a token over several lines) is shown as any other.
 */
function clientWith(token: string): SiegelClient {
  return createClient({ baseUrl: location.origin, token, retries: 0 });
}

/** The message of what a call threw: the server's (or the client's) words, else `fallback`. */
function messageOf(error: unknown, fallback: string): string {
  return error instanceof Error && error.message ? error.message : fallback;
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
  let data: InspectResult;
  try {
    data = await clientWith(token).inspect(file, { fileName: file.name });
  } catch (error) {
    byId('inspect').hidden = true;
    say(messageOf(error, 'This file cannot be read.'), false);
    return;
  }
  const { metadata, dimensions } = data;
  byId('inspect').hidden = false;
  show('file-name', data.file_name);
  show('file-author', metadata.author || '(none)');
  show('file-title', metadata.title || '(none)');
  show(
    'file-type',
    `${data.mime_type}, ${data.size_bytes} bytes${dimensions ? `, ${dimensions.width}×${dimensions.height}` : ''}`,
  );
  show('file-hash', data.hash);
  if (data.already_signed && data.urls) {
    say('This file is already signed.', true);
    showLinks(data.urls, 'Already signed');
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
  try {
    const result = await clientWith(token).sign(chosen, { fileName: chosen.name });
    // A file signed here before: the client answers with its record (and the server's message).
    if (result.alreadySigned) say(result.message, true);
    else say('Signed.', true);
    showLinks(result.urls, result.alreadySigned ? 'Already signed' : 'Signed');
  } catch (error) {
    say(messageOf(error, 'Signing failed.'), false);
    button.disabled = error instanceof SiegelApiError && error.code === 'AUTHOR_REQUIRED';
  }
});
