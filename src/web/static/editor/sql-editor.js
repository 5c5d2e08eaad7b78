// The SQL editor of the data pages: CodeMirror 6, bundled by `npm run build:web` (not served itself)
// (bin/setup runs it) into static/public/vendor/, so the app serves it itself under script-src 'self'.
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { sql, PostgreSQL } from '@codemirror/lang-sql';

/**
 * An editor in `parent` holding `doc`; Ctrl+Enter (Cmd+Enter) calls `onRun`. `tables` maps "schema.table"
 * names to their columns for completion. Returns the view: `view.state.doc.toString()` is the SQL.
 */
export function createSqlEditor(parent, { doc = '', onRun, label = 'SQL query', tables = {} }) {
  const run = () => { onRun(); return true; };
  return new EditorView({
    doc,
    parent,
    extensions: [
      basicSetup,
      sql({ dialect: PostgreSQL, schema: tables, upperCaseKeywords: true }),
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run }])),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
  });
}
