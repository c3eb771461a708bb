/**
 * Which page a verify page checked, beside its verdict (`#siegel-checked`, rendered by verify-page.ts), and
 * whether the reader came from it (`#siegel-referrer`): a forged page can link a genuine verify page of
 * another page, which would say "Valid" about that other page. The rule book decides from
 * `document.referrer` (`judgePage`'s `referrer`, `Judgement.referrer`); this file only words it.
 */

/** What the check found: the address it checked and the rule book's word on the referrer. */
export interface CheckedPage {
  /** The address the page was fetched at (after redirects). */
  address: string;
  /** `Judgement.referrer`: the reader came from that page (`same`), from another (`other`), or it is not known (`none`). */
  referrer: 'none' | 'same' | 'other';
}

/**
 * Show the address checked, as text and link, and below it what the referrer says: for `other`, that this
 * is not the page the reader came from; for `none`, to compare the address shown with the one they came
 * from (a page can suppress its referrer, so no warning proves nothing); for `same`, nothing.
 */
export function showCheckedPage({ address, referrer }: CheckedPage): void {
  const fact = document.getElementById('siegel-checked');
  const link = document.getElementById('siegel-checked-page');
  if (fact && link) {
    link.textContent = address;
    link.setAttribute('href', address);
    fact.hidden = false;
  }
  const note = document.getElementById('siegel-referrer');
  if (!note) return;
  note.dataset.referrer = referrer;
  if (referrer === 'same') return;
  const page = document.createElement('a');
  page.href = address;
  page.textContent = address;
  if (referrer === 'other') {
    const from = document.createElement('code');
    from.textContent = document.referrer;
    note.append(
      'This is not the page you came from. You came from ',
      from,
      '; this check is about ',
      page,
      ' only, and says nothing about the page you came from.',
    );
  } else
    note.append(
      'Your browser did not say which page you came from: compare the address of the page you came from with ',
      page,
      '. This check is about that address only.',
    );
  note.hidden = false;
}
