import { FILE_DROP_SCRIPT } from './file-drop-script.js';

/** The sign page's script, served at `/assets/sign.js` (plain ES2020, no build step; text via `textContent`). */
export const SIGN_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('sign-form');
  var fileInput = document.getElementById('file');
  var drop = document.getElementById('drop');
  var tokenInput = document.getElementById('token');
  var button = document.getElementById('sign-button');
  var message = document.getElementById('message');
  var chosen = null;
  try { tokenInput.value = sessionStorage.getItem('siegel-sign-token') || ''; } catch (e) {}

  function show(id, text) { document.getElementById(id).textContent = text; }
  function say(text, ok) { message.textContent = text; message.className = ok ? 'ok' : 'bad'; }
  function addLink(list, id, label, href) {
    var item = document.createElement('li');
    var link = document.createElement('a');
    link.id = id;
    link.href = href;
    link.textContent = label + ': ' + href;
    item.appendChild(link);
    list.appendChild(item);
  }

  async function inspect(file) {
    chosen = file;
    button.disabled = true;
    document.getElementById('result').hidden = true;
    say('Reading ' + file.name + '…', true);
    var body = new FormData();
    body.append('file', file, file.name);
    var response = await fetch('/api/inspect', { method: 'POST', body: body });
    var data = await response.json().catch(function () { return { message: 'Unexpected answer (' + response.status + ')' }; });
    if (!response.ok) { document.getElementById('inspect').hidden = true; say(data.message || 'This file cannot be read.', false); return; }
    document.getElementById('inspect').hidden = false;
    show('file-name', data.file_name);
    show('file-author', data.metadata.author || '(none)');
    show('file-title', data.metadata.title || '(none)');
    show('file-type', data.mime_type + ', ' + data.size_bytes + ' bytes' + (data.dimensions ? ', ' + data.dimensions.width + '×' + data.dimensions.height : ''));
    show('file-hash', data.hash);
    if (data.already_signed) { say('This file is already signed.', true); showLinks(data.urls, 'Already signed'); return; }
    if (!data.signable) { say(data.message, false); return; }
    say('Ready to sign.', true);
    button.disabled = false;
  }

  function showLinks(urls, title) {
    document.getElementById('result').hidden = false;
    show('result-title', title);
    var list = document.getElementById('result-links');
    list.textContent = '';
    addLink(list, 'link-file', 'The file', urls.file);
    addLink(list, 'link-page', 'Event page', urls.static_page);
    addLink(list, 'link-verify', 'Verify page', urls.event_page);
    addLink(list, 'link-api', 'Verify API', urls.verify);
  }

${FILE_DROP_SCRIPT}
  wireFileDrop(fileInput, drop, inspect);
  form.addEventListener('submit', async function (event) {
    event.preventDefault();
    if (!chosen) return;
    var token = tokenInput.value.trim();
    if (!token) { say('Enter the sign token first.', false); tokenInput.focus(); return; }
    try { sessionStorage.setItem('siegel-sign-token', token); } catch (e) {}
    button.disabled = true;
    say('Signing…', true);
    var body = new FormData();
    body.append('file', chosen, chosen.name);
    var response = await fetch('/api/sign-image-v2', { method: 'POST', body: body, headers: { Authorization: 'Bearer ' + token } });
    var data = await response.json().catch(function () { return { message: 'Unexpected answer (' + response.status + ')' }; });
    if (response.ok) { say('Signed.', true); showLinks(data.urls, 'Signed'); return; }
    if (data.error === 'ALREADY_SIGNED' && data.urls) { say(data.message, true); showLinks(data.urls, 'Already signed'); return; }
    say(data.message || 'Signing failed (' + response.status + ').', false);
    button.disabled = data.error === 'AUTHOR_REQUIRED';
  });
})();
`;
