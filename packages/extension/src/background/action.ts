/**
 * A tab's state on the toolbar: the icon's colour, the badge and the title, all from the one table
 * (../common/states.ts). The title starts with the state's word (`chrome.action.getTitle({ tabId })`).
 */
import type { Problem } from '@siegel/core/rules';
import { describeState, STATES, type State } from '../common/states.js';

/** Show `state` for `tabId`. A tab closed meanwhile is no error. */
export async function showState(
  tabId: number,
  state: State,
  problems: readonly Problem[] = [],
): Promise<void> {
  const { badge, colour } = STATES[state];
  await Promise.all([
    chrome.action.setTitle({ tabId, title: describeState(state, problems) }),
    chrome.action.setBadgeText({ tabId, text: badge }),
    chrome.action.setBadgeBackgroundColor({ tabId, color: colour }),
    chrome.action.setIcon({
      tabId,
      path: { '16': `icons/${state}-16.png`, '32': `icons/${state}-32.png` },
    }),
  ]).catch(() => undefined);
}

/** The tab shows no signed page any more (navigated in place to a page without a block). */
export async function clearState(tabId: number): Promise<void> {
  await Promise.all([
    chrome.action.setTitle({ tabId, title: 'Siegel: no signed page' }),
    chrome.action.setBadgeText({ tabId, text: '' }),
    chrome.action.setIcon({ tabId, path: { '16': 'icons/checking-16.png', '32': 'icons/checking-32.png' } }),
  ]).catch(() => undefined);
}
