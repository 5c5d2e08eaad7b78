import { createHash } from 'node:crypto';
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

export interface DocsPage {
  readonly html: string;
  /** CSP source expressions (`'sha256-…'`) allowing exactly the page's own inline scripts. */
  readonly scriptHashes: readonly string[];
}

/**
 * dbt's docs page as Quarry serves it: its inline application allowed by hash under a strict policy,
 * two of its requests that can only fail made right, and a link back to Quarry.
 */
export function prepareDocsPage(html: string): DocsPage {
  const prepared = html
    // dbt ships the favicon link's webpack placeholder unreplaced, so browsers ask for `${require(...)}` and get a 404.
    .replace(/<link rel="shortcut icon" href="\$\{require\([^"]*\)\}"\/>/, '<link rel="icon" href="/static/public/favicon.svg" type="image/svg+xml"/>')
    // Its menu templates put `{{ }}` straight into an SVG `<use xlink:href>`, which the browser fetches before
    // AngularJS fills it in (two 404s per menu entry); `ng-attr-` sets the attribute only once interpolated.
    .replaceAll('<use xlink:href="{{', '<use ng-attr-xlink:href="{{')
    .replace('<div ui-view></div>', `${QUARRY_LINK}<div ui-view></div>`);
  return { html: prepared, scriptHashes: inlineScriptHashes(prepared) };
}

/**
 * The way back to Quarry, in the empty stretch of dbt's header between its logo and the search box (the
 * header is `2.8571428571rem + 40px` high there); dbt's own templates are left as they are.
 */
const QUARRY_LINK = '<a href="/" style="position: fixed; top: 0; left: 150px; z-index: 10; height: calc(2.8571428571rem + 40px); '
  + 'display: flex; align-items: center; font: 600 14px system-ui, sans-serif; color: #2b5d8a;">Back to Quarry</a>';

function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  // The HTML parser's own reading of each script's text: a hash of anything else would not match the browser's.
  const visit = (node: DefaultTreeAdapterTypes.ParentNode): void => {
    for (const child of node.childNodes) {
      if (child.nodeName === 'script' && !child.attrs.some((attribute) => attribute.name === 'src')) {
        const text = child.childNodes.map((textNode) => ('value' in textNode ? textNode.value : '')).join('');
        hashes.push(`'sha256-${createHash('sha256').update(text).digest('base64')}'`);
      }
      if ('childNodes' in child) visit(child);
    }
  };
  visit(parse(html));
  return hashes;
}
