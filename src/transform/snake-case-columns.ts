// The words DuckDB 1.5 will not read as a column name without quotes: its reserved keywords, most of its
// type and function keywords, and `true`, `false` and `null`, which it reads as values.
const WORDS_NEEDING_QUOTES: ReadonlySet<string> = new Set([
  'all', 'analyse', 'analyze', 'and', 'anti', 'any', 'array', 'as', 'asc', 'asof', 'asymmetric', 'at', 'authorization',
  'binary', 'both', 'by', 'case', 'cast', 'check', 'collate', 'collation', 'column', 'concurrently', 'constraint',
  'create', 'cross', 'default', 'deferrable', 'desc', 'describe', 'distinct', 'do', 'else', 'end', 'except', 'false',
  'fetch', 'for', 'foreign', 'freeze', 'from', 'full', 'glob', 'group', 'having', 'ilike', 'in', 'initially', 'inner',
  'intersect', 'into', 'is', 'isnull', 'join', 'lambda', 'lateral', 'leading', 'left', 'like', 'limit', 'natural', 'not',
  'notnull', 'null', 'offset', 'on', 'only', 'or', 'order', 'outer', 'overlaps', 'pivot', 'pivot_longer', 'pivot_wider',
  'placing', 'positional', 'primary', 'qualify', 'references', 'returning', 'right', 'select', 'semi', 'show', 'similar',
  'some', 'summarize', 'symmetric', 'table', 'tablesample', 'then', 'to', 'trailing', 'true', 'union', 'unique', 'unpack',
  'unpivot', 'using', 'variadic', 'verbose', 'when', 'where', 'window', 'with',
]);

/** Already lower-case snake_case in ASCII (Quarry's `_quarry_file`, dlt's `_dlt_id`, `address__city`): kept as it is. */
const SNAKE_CASE = /^[a-z_][a-z0-9_]*$/;

/**
 * The column names as a staging model exposes them: lower-case snake_case that SQL reads without quotes,
 * unique within the table, one per column in the same order.
 *
 * - camelCase splits into words (`invoiceId`, `InvoiceID` → `invoice_id`; `HTTPServer` → `http_server`), but
 *   an all-caps word keeps a one-letter lower-case tail (`UserIDs` → `user_ids`);
 * - accents on Latin letters are dropped (`Café` → `cafe`, `Größe` → `große`), other letters kept (`Имя` → `имя`);
 * - every run of other characters (spaces, punctuation, underscores) becomes one `_`, trimmed at both ends;
 * - a leading digit gets a `_` before it (`1st Place` → `_1st_place`), a word DuckDB reads only quoted one after it
 *   (`Order` → `order_`), and a name left empty becomes `column_<position>`;
 * - a name taken twice gets `_2`, `_3`… in column order, after the columns already named that way
 *   (`invoice_id`, then the first to become it) keep theirs.
 */
export function snakeCaseColumns(columns: readonly string[]): string[] {
  const bases = columns.map((column, index) => snakeCaseName(column) || `column_${String(index + 1)}`);
  const names: (string | undefined)[] = columns.map((column, index) => (bases[index] === column ? column : undefined));
  const taken = new Set(names.filter((name) => name !== undefined));
  bases.forEach((base, index) => {
    if (names[index] !== undefined || taken.has(base)) return;
    names[index] = base;
    taken.add(base);
  });
  return bases.map((base, index) => {
    const kept = names[index];
    if (kept !== undefined) return kept;
    const stem = base.endsWith('_') && WORDS_NEEDING_QUOTES.has(base.slice(0, -1)) ? base.slice(0, -1) : base;
    let suffix = 2;
    while (taken.has(`${stem}_${String(suffix)}`)) suffix++;
    const name = `${stem}_${String(suffix)}`;
    taken.add(name);
    return name;
  });
}

/** One name in snake_case, '' when nothing of it is left. */
function snakeCaseName(column: string): string {
  if (SNAKE_CASE.test(column) && !WORDS_NEEDING_QUOTES.has(column)) return column;
  const words = column
    .normalize('NFKD')
    .replaceAll(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .replaceAll(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1_$2')
    .replaceAll(/(\p{Lu})(\p{Lu}\p{Ll}{2})/gu, '$1_$2')
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{M}\p{Nd}]+/gu, '_')
    .replaceAll(/^_+|_+$/g, '');
  if (words === '') return '';
  const name = /^[0-9]/.test(words) ? `_${words}` : words;
  return WORDS_NEEDING_QUOTES.has(name) ? `${name}_` : name;
}
