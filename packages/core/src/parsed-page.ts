import { analyzePage } from './page-analysis.js';
import { type BlockPlace, toBytePlace } from './page-splice.js';

/** What the signing pipeline needs from one parse of a page. */
export interface ParsedPage {
  hash: string | undefined;
  title: string | undefined;
  description: string | undefined;
  place: BlockPlace;
  /** `place` in UTF-8 byte offsets. */
  bytePlace: BlockPlace;
}

/** Parse a page's raw bytes for signing (in this thread, or in a parse worker). */
export function parsePageForSigning(input: Buffer, selector: string): ParsedPage {
  const html = input.toString('utf8');
  const analysis = analyzePage(html, { selector });
  const place: BlockPlace = {
    insertAt: analysis.insertAt,
    ...(analysis.existingBlock ? { existingBlock: analysis.existingBlock } : {}),
  };
  return {
    hash: analysis.hash,
    title: analysis.title,
    description: analysis.description,
    place,
    bytePlace: toBytePlace(html, place, input.length),
  };
}
