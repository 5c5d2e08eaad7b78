// dbt renders every model and most of a properties YAML with Jinja before anything else sees it, so a
// name Quarry writes into one (a CSV header, an API's field name, a database column) must reach dbt as
// text Jinja prints back unchanged, or it runs as dbt code with the warehouse writer's rights.

/** What Quarry writes for a `{`: an expression that prints it, so no Jinja delimiter can start inside a name. */
const ESCAPED_BRACE = "{{ '{' }}";

/**
 * `text` as template source Jinja renders back to exactly `text`. Every Jinja delimiter (`{{`, `{%`,
 * `{#`) starts with `{`, and each `{` becomes an expression of its own, so none can open.
 */
export function jinjaLiteral(text: string): string {
  return text.replaceAll('{', ESCAPED_BRACE);
}

/** `\uXXXX` (or `\UXXXXXXXX` past the BMP) for every character outside printable ASCII: valid in YAML and Jinja strings alike. */
function escapeNonAscii(text: string): string {
  let escaped = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e) escaped += character;
    else if (code <= 0xffff) escaped += `\\u${code.toString(16).padStart(4, '0')}`;
    else escaped += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return escaped;
}

/** A single-quoted Jinja string literal holding `text` (for arguments of the expressions Quarry writes). */
export function jinjaString(text: string): string {
  return `'${escapeNonAscii(text.replaceAll('\\', '\\\\').replaceAll("'", "\\'"))}'`;
}

/**
 * A double-quoted YAML scalar that dbt reads, renders, and ends up with `text`. Only printable ASCII is
 * written raw: YAML parsers refuse some control characters even in quotes and fold line separators.
 */
export function yamlJinjaString(text: string): string {
  return `"${escapeNonAscii(jinjaLiteral(text).replaceAll('\\', '\\\\').replaceAll('"', '\\"'))}"`;
}

/** A DuckDB quoted identifier as Jinja template source: `"name"` with quotes doubled and braces escaped. */
export function jinjaIdentifier(name: string): string {
  return jinjaLiteral(`"${name.replaceAll('"', '""')}"`);
}

/** One line of a SQL `--` comment or YAML `#` comment: a line break in `text` would end the comment. */
export function commentText(text: string): string {
  return jinjaLiteral(text.replaceAll(/[\r\n\u0085\u2028\u2029]/g, ' '));
}

/** A line-break-safe rendering of a Jinja string literal, as in `source('shop', 'orders')`. */
const JINJA_STRING = String.raw`'(?:[^'\\\n]|\\.)*'`;
const ALLOWED_EXPRESSIONS = new RegExp(
  `${ESCAPED_BRACE.replaceAll(/[{}']/g, (character) => `\\${character}`)}|\\{\\{ source\\(${JINJA_STRING}, ${JINJA_STRING}\\) \\}\\}`,
  'g',
);

/** A generated dbt file held Jinja that Quarry did not put there on purpose: a name escaped its escaping. */
export class UnsafeGeneratedFileError extends Error {
  constructor(file: string) {
    super(`Quarry refused to write ${file}: it would hold Jinja code that did not come from Quarry`);
  }
}

/**
 * Throws unless the only Jinja in `text` is what Quarry writes on purpose (escaped braces and
 * `source()` calls): the check after generation that keeps a missed escape from reaching dbt.
 */
export function assertOnlyQuarryJinja(file: string, text: string): void {
  if (/\{[{%#]/.test(text.replaceAll(ALLOWED_EXPRESSIONS, ''))) throw new UnsafeGeneratedFileError(file);
}
