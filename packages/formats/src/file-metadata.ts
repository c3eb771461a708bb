/** Width and height in pixels. */
export interface Dimensions {
  width: number;
  height: number;
}

/** Author, title and description as found in a file's own metadata (before placeholder checks). */
export interface FoundMetadata {
  /** Author names in the order the file lists them (may include placeholders). */
  authors: string[];
  /**
   * Which field the authors came from, when a reader says (`xmp:dc:creator`, `iptc:By-line`, `exif:Artist`,
   * `png:Author` for images): the API's `metadata.author_source`.
   */
  authorSource?: string | undefined;
  /**
   * The first author field that names its authors by keys into another file (Jekyll's `_data/authors.yml`,
   * Docusaurus' `authors.yml`) instead of by name: its `author_source`-style place and the keys. Such a field
   * is not signed; when no other names an author, the refusal explains the keys.
   */
  authorKeys?: { source: string; keys: string[] } | undefined;
  title?: string | undefined;
  description?: string | undefined;
}

/** The kinds of files the service signs, as the API names them. */
export type FileKind = 'image' | 'document' | 'text';

/** What the bytes of an upload are, told from the bytes (and, for text, the name). */
export interface FileType {
  kind: FileKind;
  mimeType: string;
  /** File extension the service stores it under, without the dot. */
  extension: string;
}
