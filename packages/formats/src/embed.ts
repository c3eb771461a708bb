// `@siegel/formats/embed`: the writers alone. Their module graph is web APIs only, with no third-party import
// (the readers need a YAML, a TOML and an XML parser), so a page can load it as plain ES modules.
export { type EmbedAuthorOptions, embedAuthor, formatOf } from './embed-author.js';
export { detectFormat, type EmbedFormat, FORMAT_EXTENSIONS, isText } from './file-formats.js';
export { EmbedInputError, FormatError, type FormatErrorKind } from './format-error.js';
export { escapeXml, xmpPacket } from './xmp/packet.js';
