import type { AuthorFields } from '../author-fields.js';

/** Escape text for XML content and attribute values (the five predefined entities). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&${ENTITIES[char]};`);
}

const ENTITIES: Record<string, string> = { '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' };

/**
 * An XMP packet (XMP Specification Part 1) with `dc:creator` as an ordered list (`rdf:Seq`, one `rdf:li`
 * per author, as Adobe's tools and exiftool write it) and `dc:title` as a language alternative
 * (`x-default`), in the `<?xpacket?>` wrapper. Its text is UTF-8 and never holds a NUL byte (a GIF needs that).
 *
 * @example
 * ```ts
 * xmpPacket({ authors: ['Ana Lima'], title: 'Harbour' }); // '<?xpacket begin="\uFEFF" …'
 * ```
 */
export function xmpPacket(fields: AuthorFields): string {
  const creators = fields.authors.map((name) => `     <rdf:li>${escapeXml(name)}</rdf:li>\n`).join('');
  const title =
    fields.title === undefined
      ? ''
      : `   <dc:title>\n    <rdf:Alt>\n     <rdf:li xml:lang="x-default">${escapeXml(fields.title)}</rdf:li>\n    </rdf:Alt>\n   </dc:title>\n`;
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n' +
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    '  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">\n' +
    `   <dc:creator>\n    <rdf:Seq>\n${creators}    </rdf:Seq>\n   </dc:creator>\n` +
    title +
    '  </rdf:Description>\n' +
    ' </rdf:RDF>\n' +
    '</x:xmpmeta>\n' +
    '<?xpacket end="w"?>'
  );
}
