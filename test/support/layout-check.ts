import type { Page } from 'playwright-core';

/**
 * Runs in the page (a string, not a function: the test's TypeScript has no DOM types). Whatever looks like a
 * button counts as one. Overflow other than visible clips sideways, be it hidden or a scrolling box, since a
 * button half hidden in a scrolling table is as cut as one past a hidden edge; downwards only hidden and clip
 * do, as scrolling down to a button is what pages are for. Sub-pixel layout may put an edge a fraction of a
 * pixel past its box without cutting anything, hence the half-pixel slack.
 */
const FIND_PROBLEMS = `(() => {
  const problems = [];
  const root = document.documentElement;
  const slack = 0.5;
  if (root.scrollWidth > root.clientWidth) {
    problems.push('the page scrolls sideways: ' + root.scrollWidth + ' px of content in ' + root.clientWidth + ' px');
  }
  const describe = (element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + [...element.classList].map((name) => '.' + name).join('');
  for (const button of document.querySelectorAll('button, a.button, label.button, input[type="button"], input[type="submit"]')) {
    const box = button.getBoundingClientRect();
    if (!button.checkVisibility({ visibilityProperty: true }) || box.width === 0 || box.height === 0) continue;
    const name = 'button "' + (button.getAttribute('aria-label') || button.textContent || button.value || '').trim().replace(/\\s+/g, ' ') + '"';
    if (box.left < -slack || box.right > root.clientWidth + slack) {
      problems.push(name + ' reaches past the viewport: ' + Math.round(box.left) + ' to ' + Math.round(box.right) + ' px of ' + root.clientWidth + ' px');
    }
    if (button.scrollWidth > button.clientWidth) problems.push(name + ' is too narrow for its label');
    for (let ancestor = button.parentElement; ancestor !== null && ancestor !== document.body; ancestor = ancestor.parentElement) {
      const style = getComputedStyle(ancestor);
      const clipsSideways = style.overflowX !== 'visible';
      const clipsDownwards = style.overflowY === 'hidden' || style.overflowY === 'clip';
      if (!clipsSideways && !clipsDownwards) continue;
      const frame = ancestor.getBoundingClientRect();
      const left = frame.left + ancestor.clientLeft;
      const top = frame.top + ancestor.clientTop;
      const cutSideways = clipsSideways && (box.left < left - slack || box.right > left + ancestor.clientWidth + slack);
      const cutDownwards = clipsDownwards && (box.top < top - slack || box.bottom > top + ancestor.clientHeight + slack);
      if (cutSideways || cutDownwards) {
        problems.push(name + ' is cut off by ' + describe(ancestor) + ' (overflow ' + style.overflowX + ' ' + style.overflowY + ')');
        break;
      }
    }
  }
  return problems;
})()`;

/**
 * What does not fit the page at its current width, one line each: the whole page scrolling sideways, and every
 * visible button not shown whole (past the viewport's edge, its label overflowing it, or cut off by an ancestor
 * that clips or scrolls its content). An empty list means the page fits.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(FIND_PROBLEMS);
}
