// The verify page's script, served at `/assets/verify.js`: hashes a dropped file with WebCrypto on this
// device (the file is never uploaded), then opens `/verify?hash=`.
import { byId, wireFileDrop } from './file-drop.js';

const drop = byId('drop');
const fileInput = byId<HTMLInputElement>('file');
const message = byId('message');

async function check(file: File): Promise<void> {
  if (!window.crypto || !crypto.subtle) {
    message.textContent = 'This browser cannot hash files here (WebCrypto needs HTTPS).';
    return;
  }
  message.textContent = `Hashing ${file.name} on this device…`;
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  byId<HTMLInputElement>('hash').value = hex;
  location.assign(`/verify?hash=${hex}`);
}

wireFileDrop(fileInput, drop, check);
