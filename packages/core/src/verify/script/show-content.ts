/**
 * "What was signed" on the verify page (the `#siegel-content` section `renderVerifyPage` writes, hidden):
 * once the check says valid, the signed element's `innerHTML` — the exact string that was hashed — is shown
 * twice, so a reader can compare it with what they saw on the page:
 * - rendered in `#siegel-content-frame`, an iframe with an empty `sandbox` (no scripts, no same origin, no
 *   forms, no popups, no top navigation) whose document starts with a Content-Security-Policy that allows
 *   inline styles and `data:` images only, so nothing in the content reaches the network;
 * - as text in `#siegel-content-text`.
 */

/**
 * Put before the signed content in its frame (`srcdoc`): the CSP comes first, so it covers everything after
 * it — inline styles and `data:` images only, nothing from the network. Every page that shows signed content
 * frames it so (this verify page, the file server's verify-by-URL page).
 */
export const SIGNED_CONTENT_FRAME_HEAD =
  '<!doctype html><meta charset="utf-8">' +
  `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">` +
  '<style>body{font:16px/1.5 system-ui,sans-serif;margin:1rem;color:#1d1d1f}img,video,svg{max-width:100%;height:auto}</style>';

/** Show `html` (the signed content, exactly as hashed) in the verify page's "What was signed" section. */
export function showSignedContent(html: string): void {
  const section = document.getElementById('siegel-content');
  const frame = document.getElementById('siegel-content-frame');
  const text = document.getElementById('siegel-content-text');
  if (!section || !(frame instanceof HTMLIFrameElement) || !text) return;
  frame.srcdoc = SIGNED_CONTENT_FRAME_HEAD + html;
  text.textContent = html;
  section.hidden = false;
}
