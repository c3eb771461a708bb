export { type EmbedFormat, FORMAT_EXTENSIONS } from './detect-format.js';
export { type EmbedAuthorOptions, embedAuthor, formatOf } from './embed-author.js';
export { escapeXml, xmpPacket } from './xmp-packet.js';
