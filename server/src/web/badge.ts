/** Escape text for SVG/XML content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * A small SVG badge, "siegel | verified" (green) or "siegel | not verified" (grey), linking to `href`.
 * Text widths are estimated (7 px per character at 11 px Verdana), as shields-style badges do.
 */
export function renderBadge(verified: boolean, href: string): string {
  const left = 'siegel';
  const right = verified ? '✓ verified' : 'not verified';
  const leftWidth = 12 + left.length * 7;
  const rightWidth = 12 + right.length * 7;
  const width = leftWidth + rightWidth;
  const color = verified ? '#2e7d32' : '#757575';
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="20" role="img" aria-label="${left}: ${right}">
<title>${left}: ${right}</title>
<a href="${escapeXml(href)}" xlink:href="${escapeXml(href)}" target="_top">
<rect width="${leftWidth}" height="20" fill="#333"/>
<rect x="${leftWidth}" width="${rightWidth}" height="20" fill="${color}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="6" y="14">${left}</text>
<text x="${leftWidth + 6}" y="14">${right}</text>
</g>
</a>
</svg>`;
}
