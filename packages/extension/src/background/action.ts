/**
 * A tab's state on the toolbar: the icon's colour, the badge and the title, all from the one table
 * (../common/states.ts). The title starts with the state's word (`chrome.action.getTitle({ tabId })`).
 */
import type { Problem } from '@siegel/core/rules';
import { describeState, STATES, type State } from '../common/states.js';

/**
 * Each icon decoded once per worker from the packaged PNG: `setIcon` with a `path` has the browser fetch and
 * decode the files again on every call (two calls per check: CHECKING, then the state).
 */
const decoded = new Map<string, Promise<ImageData>>();
function decode(path: string): Promise<ImageData> {
  let image = decoded.get(path);
  if (!image) {
    image = (async () => {
      const bitmap = await createImageBitmap(await (await fetch(chrome.runtime.getURL(path))).blob());
      const context = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d');
      if (!context) throw new Error('no 2d context');
      context.drawImage(bitmap, 0, 0);
      return context.getImageData(0, 0, bitmap.width, bitmap.height);
    })();
    decoded.set(path, image);
  }
  return image;
}

/** The icon of `state`, decoded; its files' paths where decoding is not possible. */
async function iconOf(state: State): Promise<IconDetails> {
  const path = { '16': `icons/${state}-16.png`, '32': `icons/${state}-32.png` };
  try {
    return { imageData: { '16': await decode(path['16']), '32': await decode(path['32']) } };
  } catch {
    return { path };
  }
}
type IconDetails = { imageData: Record<string, ImageData> } | { path: Record<string, string> };

/** Icons are set one after another, so a tab's last state is its icon whatever decoded first. */
let icons: Promise<unknown> = Promise.resolve();
function setIcon(tabId: number, state: State): Promise<void> {
  const next = icons.then(async () => chrome.action.setIcon({ tabId, ...(await iconOf(state)) }));
  icons = next.catch(() => undefined);
  return next;
}

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
    setIcon(tabId, state),
  ]).catch(() => undefined);
}

/** The tab shows no signed page any more (navigated in place to a page without a block). */
export async function clearState(tabId: number): Promise<void> {
  await Promise.all([
    chrome.action.setTitle({ tabId, title: 'Siegel: no signed page' }),
    chrome.action.setBadgeText({ tabId, text: '' }),
    setIcon(tabId, 'checking'),
  ]).catch(() => undefined);
}
