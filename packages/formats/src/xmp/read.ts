import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { FoundMetadata } from '../file-metadata.js';
import { damaged } from '../format-error.js';
import { FORMAT_LIMITS, pastLimit } from '../limits.js';

const DC = 'http://purl.org/dc/elements/1.1/';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
/** `tiff:Artist`, the XMP form of EXIF `Artist` (XMP Specification Part 2, 3.2; exiftool's `XMP-tiff:Artist`). */
const TIFF = 'http://ns.adobe.com/tiff/1.0/';
/** `xmpNote:HasExtendedXMP` names the GUID of a JPEG's Extended XMP (XMP Specification Part 3, 1.1.3.1). */
const XMP_NOTE = 'http://ns.adobe.com/xmp/note/';

/** What a packet says: author, title, description, and the GUID of its JPEG Extended XMP, if it has one. */
export interface XmpMetadata extends FoundMetadata {
  hasExtendedXmp?: string;
  /** `tiff:Artist`: one string, as EXIF `Artist` (read after `dc:creator`, IPTC and EXIF). */
  artist?: string;
}
/** XMP packets larger than this are not parsed (real ones are a few KiB; 1 MiB leaves room for thumbnails). */
export const MAX_XMP_BYTES = FORMAT_LIMITS.xmp_bytes;
const MAX_DEPTH = FORMAT_LIMITS.xmp_nesting;
const MAX_NAMESPACES = FORMAT_LIMITS.xmp_namespaces;
/** `dc:creator` entries collected (only the first 20 real names are kept). */
const MAX_CREATORS = 1000;
/** The end of an XMP packet's trailer processing instruction, `<?xpacket end="w"?>`. */
const PACKET_END = /<\?xpacket\s+end=["'][rw]["']\s*\?>/;

// Entity expansion off: `&name;` stays as written, so neither DTD entities nor bombs are ever expanded.
// The five predefined entities and character references are decoded by `decodeXmlText` below, by hand.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type XmlNode = Record<string, unknown>;

/**
 * Read `dc:creator` (every entry of its `rdf:Seq`/`rdf:Bag`), `dc:title` and `dc:description` (the
 * `x-default` entry of their `rdf:Alt`) and `tiff:Artist` from an XMP packet. Namespace prefixes are resolved, so a packet that
 * binds Dublin Core to another prefix is read too. Entities are never expanded; a DOCTYPE is refused. What
 * follows the packet's `<?xpacket end="w"?>` is not part of it (Photoshop writes a NUL byte there, and
 * exiftool reads such packets), and trailing NUL bytes are dropped.
 *
 * @throws {FormatError} for a packet that is too large, has a DOCTYPE, is not well-formed, or
 *   is past `xmp_nesting` or `xmp_namespaces`.
 */
export function readXmp(packet: Uint8Array | string): XmpMetadata {
  const text = trimPacket(typeof packet === 'string' ? packet : new TextDecoder().decode(packet));
  if (text.length > MAX_XMP_BYTES)
    throw pastLimit('xmp_bytes', `XMP metadata is larger than ${MAX_XMP_BYTES} bytes`);
  if (/<!DOCTYPE/i.test(text))
    throw damaged('xmp', 'XMP metadata contains a DOCTYPE, which XMP does not allow');
  // Every element that declares a namespace copies the scope it inherits: bounded, that stays linear.
  let namespaces = 0;
  for (const _ of text.matchAll(/\sxmlns(?::[^\s=]*)?\s*=/g)) {
    if (++namespaces > MAX_NAMESPACES) {
      throw pastLimit('xmp_namespaces', `XMP metadata declares more than ${MAX_NAMESPACES} namespaces`);
    }
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw damaged('xmp', `XMP metadata is not well-formed XML: ${valid.err.msg}`);
  let tree: XmlNode[];
  try {
    tree = parser.parse(text) as XmlNode[];
  } catch (error) {
    throw damaged('xmp', `XMP metadata is not well-formed XML: ${(error as Error).message}`);
  }
  const found: XmpMetadata = { authors: [] };
  walk(tree, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]), 0, found);
  return found;
}

/** The packet up to its `<?xpacket end=…?>` (if any), without trailing NUL bytes. */
function trimPacket(text: string): string {
  const end = PACKET_END.exec(text);
  const packet = end === null ? text : text.slice(0, end.index + end[0].length);
  let length = packet.length;
  while (length > 0 && packet.charCodeAt(length - 1) === 0) length--;
  return length === packet.length ? packet : packet.slice(0, length);
}

function walk(nodes: XmlNode[], scope: Map<string, string>, depth: number, found: XmpMetadata): void {
  if (depth > MAX_DEPTH)
    throw pastLimit('xmp_nesting', `XMP metadata is nested deeper than ${MAX_DEPTH} levels`);
  for (const node of nodes) {
    const name = Object.keys(node).find((key) => key !== ':@');
    if (name === undefined || name === '#text') continue;
    const attributes = (node[':@'] ?? {}) as Record<string, string>;
    const inner = withNamespaces(scope, attributes);
    const children = Array.isArray(node[name]) ? (node[name] as XmlNode[]) : [];
    const { uri, local } = resolve(name, inner);
    if (uri === DC && local === 'creator') {
      for (const item of listItems(children, inner)) {
        if (found.authors.length < MAX_CREATORS) found.authors.push(item.text);
      }
      continue;
    }
    if (uri === DC && (local === 'title' || local === 'description')) {
      found[local] ??= pickDefault(listItems(children, inner)) ?? textOf(children);
      continue;
    }
    if (uri === XMP_NOTE && local === 'HasExtendedXMP') {
      found.hasExtendedXmp ??= textOf(children);
      continue;
    }
    if (uri === TIFF && local === 'Artist') {
      found.artist ??= textOf(children);
      continue;
    }
    if (uri === RDF && local === 'Description') readAttributes(attributes, inner, found);
    walk(children, inner, depth + 1, found);
  }
}

/** `<rdf:Description dc:creator="…" dc:title="…">`, the short form of simple properties. */
function readAttributes(
  attributes: Record<string, string>,
  scope: Map<string, string>,
  found: XmpMetadata,
): void {
  for (const [name, value] of Object.entries(attributes)) {
    const { uri, local } = resolve(name, scope);
    if (uri === XMP_NOTE && local === 'HasExtendedXMP') found.hasExtendedXmp ??= decodeXmlText(value);
    if (uri === TIFF && local === 'Artist') found.artist ??= decodeXmlText(value);
    if (uri !== DC) continue;
    if (local === 'creator' && found.authors.length < MAX_CREATORS) found.authors.push(decodeXmlText(value));
    if (local === 'title' || local === 'description') found[local] ??= decodeXmlText(value);
  }
}

interface ListItem {
  text: string;
  lang: string | undefined;
}

/** The `rdf:li` entries of the `rdf:Seq`/`rdf:Bag`/`rdf:Alt` inside a property, or its plain text. */
function listItems(children: XmlNode[], scope: Map<string, string>): ListItem[] {
  const items: ListItem[] = [];
  for (const container of children) {
    const containerName = Object.keys(container).find((key) => key !== ':@');
    if (containerName === undefined) continue;
    if (containerName === '#text') {
      items.push({ text: decodeXmlText(String(container[containerName])), lang: undefined });
      continue;
    }
    const containerScope = withNamespaces(scope, (container[':@'] ?? {}) as Record<string, string>);
    for (const li of (container[containerName] ?? []) as XmlNode[]) {
      const liName = Object.keys(li).find((key) => key !== ':@');
      if (liName === undefined || liName === '#text') continue;
      const liAttributes = (li[':@'] ?? {}) as Record<string, string>;
      const { uri, local } = resolve(liName, withNamespaces(containerScope, liAttributes));
      if (uri !== RDF || local !== 'li') continue;
      const text = textOf((li[liName] ?? []) as XmlNode[]);
      if (text !== undefined) items.push({ text, lang: liAttributes['xml:lang'] });
    }
  }
  return items;
}

function pickDefault(items: ListItem[]): string | undefined {
  return (items.find((item) => item.lang === 'x-default') ?? items[0])?.text;
}

function textOf(children: XmlNode[]): string | undefined {
  const parts = children.filter((child) => '#text' in child).map((child) => String(child['#text']));
  return parts.length === 0 ? undefined : decodeXmlText(parts.join(''));
}

function withNamespaces(scope: Map<string, string>, attributes: Record<string, string>): Map<string, string> {
  let next = scope;
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (next === scope) next = new Map(scope);
      next.set(name === 'xmlns' ? '' : name.slice(6), value);
    }
  }
  return next;
}

function resolve(name: string, scope: Map<string, string>): { uri: string | undefined; local: string } {
  const colon = name.indexOf(':');
  if (colon === -1) return { uri: scope.get(''), local: name };
  return { uri: scope.get(name.slice(0, colon)), local: name.slice(colon + 1) };
}

/** Decode the five predefined XML entities and character references; any other `&name;` stays literal. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, entity: string) => {
    switch (entity) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
    }
    const code =
      entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
      ? String.fromCodePoint(code)
      : whole;
  });
}
