// The element scopes of today's HTML standard, on parse5's stack of open elements. parse5 8.1.1 keeps its
// scope boundaries in a module-private table, so they are corrected here per stack, by wrapping its scope
// queries (issue 23):
//
// - `select` bounds every scope but table scope ("has an element in scope", list item and button scope):
//   since the relaxed `<select>` (whatwg/html #10548, Chromium, Firefox, WebKit) `</p>`, `</div>` or `</main>`
//   inside an open `<select>` no longer closes it — `<p>Size: <select><option>M</option></p><p>Recall</p>`
//   keeps the second paragraph inside the select, as browsers show it.
// - `template` bounds table scope (html, table, template — parse5 leaves template out): `<table><template>
//   <colgroup><table>` ignores the inner `<table>`, and `</tbody>` in a template's `<tr>` is ignored instead of
//   popping the row and the formatting elements in it.
//
// Each wrapper asks parse5 first (its own boundaries), then whether the extra boundary is open above the
// target; the stack keeps its slots in stack order, so "above" is a larger slot.
import { html } from 'parse5';

const $ = html.TAG_ID;
const NUMBERED_HEADERS = [$.H1, $.H2, $.H3, $.H4, $.H5, $.H6];
const TABLE_BODIES = [$.TBODY, $.TFOOT, $.THEAD];

/** The part of parse5's `OpenElementStack` the wrappers use and replace. */
export interface ScopedStack {
  indexOfTopmost(tagID: number): number;
  indexOfTopmostOf(tagIDs: number[]): number;
  _indexOf(element: unknown): number;
  hasInScope(tagID: number, element?: unknown): boolean;
  hasInListItemScope(tagID: number): boolean;
  hasInButtonScope(tagID: number): boolean;
  hasNumberedHeaderInScope(): boolean;
  hasInTableScope(tagID: number): boolean;
  hasTableBodyContextInTableScope(): boolean;
}

/**
 * Correct the scope queries of one parser's stack of open elements to today's standard (see above).
 *
 * @example
 * ```ts
 * applyCurrentScopes(parser.openElements);
 * ```
 */
export function applyCurrentScopes(stack: ScopedStack): void {
  const inScope = stack.hasInScope.bind(stack);
  const inListItemScope = stack.hasInListItemScope.bind(stack);
  const inButtonScope = stack.hasInButtonScope.bind(stack);
  const headerInScope = stack.hasNumberedHeaderInScope.bind(stack);
  const inTableScope = stack.hasInTableScope.bind(stack);
  const bodyInTableScope = stack.hasTableBodyContextInTableScope.bind(stack);
  /** No open `boundary` element lies above the slot `target` (the target itself may be one). */
  const below = (boundary: number, target: number) => stack.indexOfTopmost(boundary) <= target;
  const notSelectBound = (tagID: number) =>
    tagID === $.SELECT || below($.SELECT, stack.indexOfTopmost(tagID));

  stack.hasInScope = (tagID, element) =>
    inScope(tagID, element) &&
    (element === undefined ? notSelectBound(tagID) : below($.SELECT, stack._indexOf(element)));
  stack.hasInListItemScope = (tagID) => inListItemScope(tagID) && notSelectBound(tagID);
  stack.hasInButtonScope = (tagID) => inButtonScope(tagID) && notSelectBound(tagID);
  stack.hasNumberedHeaderInScope = () =>
    headerInScope() && below($.SELECT, stack.indexOfTopmostOf(NUMBERED_HEADERS));
  stack.hasInTableScope = (tagID) =>
    inTableScope(tagID) && (tagID === $.TEMPLATE || below($.TEMPLATE, stack.indexOfTopmost(tagID)));
  stack.hasTableBodyContextInTableScope = () =>
    bodyInTableScope() && below($.TEMPLATE, stack.indexOfTopmostOf(TABLE_BODIES));
}
