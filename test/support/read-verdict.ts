import type { Page } from 'playwright-core';

/** What a verify page's `#siegel-status` settled on. */
export interface Verdict {
  state: string;
  /** The first problem's code (`ok` when valid). */
  reason: string;
  /** Every problem's code, errors first (`data-codes`). */
  codes: string[];
  /** The text as a reader reads it: code spans are `<code>` elements, their backticks gone. */
  text: string;
  /** The text of each `<code>` element in it, in order. */
  code: string[];
}

/**
 * Open the verify page of `eventId` under the site at `siteUrl` (ending in `/`) in `page` and wait (up to
 * 20 s) until its `#siegel-status` leaves `pending`.
 */
export async function readVerdict(page: Page, siteUrl: string, eventId: string): Promise<Verdict> {
  await page.goto(`${siteUrl}verify/${eventId}/`);
  const status = page.locator('#siegel-status:not([data-state="pending"])');
  await status.waitFor({ timeout: 20_000 });
  return {
    state: (await status.getAttribute('data-state')) ?? '',
    reason: (await status.getAttribute('data-reason')) ?? '',
    codes: ((await status.getAttribute('data-codes')) ?? '').split(' ').filter(Boolean),
    text: (await status.textContent()) ?? '',
    code: await status.locator('code').allTextContents(),
  };
}
