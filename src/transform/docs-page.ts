import { createHash } from 'node:crypto';
import { parse, type DefaultTreeAdapterTypes } from 'parse5';

export interface DocsPage {
  readonly html: string;
  /** CSP source expressions (`'sha256-…'`) allowing exactly the page's own inline scripts. */
  readonly scriptHashes: readonly string[];
}

/**
 * dbt's docs page as Quarry serves it: its inline application allowed by hash under a strict policy,
 * and two of its requests that can only fail made right.
 */
export function prepareDocsPage(html: string): DocsPage {
  const prepared = html
    // dbt ships the favicon link's webpack placeholder unreplaced, so browsers ask for `${require(...)}` and get a 404.
    .replace(/<link rel="shortcut icon" href="\$\{require\([^"]*\)\}"\/>/, '<link rel="icon" href="/static/public/favicon.svg" type="image/svg+xml"/>')
    // Its menu templates put `{{ }}` straight into an SVG `<use xlink:href>`, which the browser fetches before
    // AngularJS fills it in (two 404s per menu entry); `ng-attr-` sets the attribute only once interpolated.
    .replaceAll('<use xlink:href="{{', '<use ng-attr-xlink:href="{{');
  return { html: prepared, scriptHashes: inlineScriptHashes(prepared) };
}

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
