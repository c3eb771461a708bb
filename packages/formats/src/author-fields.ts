import { EmbedInputError } from './format-error.js';

/** What `embedAuthor` writes: one or more authors, and a title when given. */
export interface AuthorFields {
  authors: string[];
  title: string | undefined;
}

// C0 and C1 control characters and DEL: not allowed in XML 1.0 text (most), and never part of a name.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Check and trim the author (a name or a list of names) and title given to `embedAuthor`.
 *
 * @throws {EmbedInputError} `INVALID_AUTHOR` for no author, an empty name, a control character or broken Unicode.
 */
export function readAuthorFields(author: unknown, title: unknown): AuthorFields {
  const names = typeof author === 'string' ? [author] : Array.isArray(author) ? author : undefined;
  if (names === undefined || names.length === 0) {
    throw invalidAuthor('`author` must be a name or a non-empty list of names');
  }
  const authors = names.map((name, index) =>
    checkText(name, names.length === 1 ? '`author`' : `\`author[${index}]\``),
  );
  return { authors, title: title === undefined ? undefined : checkText(title, '`title`') };
}

function checkText(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalidAuthor(`${what} must be a string, got \`${typeof value}\``);
  const text = value.trim();
  if (text === '') throw invalidAuthor(`${what} is empty`);
  if (CONTROL.test(text)) {
    throw invalidAuthor(
      `${what} \`${JSON.stringify(text).slice(1, -1)}\` holds a control character (a line break?)`,
    );
  }
  if (LONE_SURROGATE.test(text))
    throw invalidAuthor(`${what} holds a lone UTF-16 surrogate: it is not valid Unicode`);
  return text;
}

export function invalidAuthor(message: string): EmbedInputError {
  return new EmbedInputError('INVALID_AUTHOR', message);
}
