import { FILE_DROP_SCRIPT } from './file-drop-script.js';

/** The verify page's script, served at `/assets/verify.js`: hashes a dropped file with WebCrypto, then asks. */
export const VERIFY_SCRIPT = `'use strict';
(function () {
  var drop = document.getElementById('drop');
  var fileInput = document.getElementById('file');
  var message = document.getElementById('message');

  async function check(file) {
    if (!window.crypto || !crypto.subtle) { message.textContent = 'This browser cannot hash files here (WebCrypto needs HTTPS).'; return; }
    message.textContent = 'Hashing ' + file.name + ' on this device…';
    var digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    var hex = Array.from(new Uint8Array(digest), function (b) { return b.toString(16).padStart(2, '0'); }).join('');
    document.getElementById('hash').value = hex;
    location.assign('/verify?hash=' + hex);
  }

${FILE_DROP_SCRIPT}
  wireFileDrop(fileInput, drop, check);
})();
`;
