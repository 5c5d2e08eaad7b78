import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.ts';

/** Parses YAML text, or throws one ConfigError naming each syntax error's line and column. */
export function readYaml(text: string, label: string): unknown {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new ConfigError(document.errors.map((error) => {
      const position = error.linePos?.[0];
      const where = position ? `line ${position.line}, column ${position.col}` : 'syntax';
      return `${label}: ${where}: ${error.message.split('\n')[0] ?? error.code}`;
    }));
  }
  return document.toJS() as unknown;
}
