import { LineCounter, parseDocument } from 'yaml';
import { ConfigError, firstLineOf } from '../errors.ts';

/** Parses YAML text, or throws one ConfigError naming each syntax error's line and column. */
export function readYaml(text: string, label: string): unknown {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (document.errors.length > 0) {
    throw new ConfigError(document.errors.map((error) => {
      const position = lineCounter.linePos(error.pos[0]);
      return `${label}: line ${position.line}, column ${position.col}: ${firstLineOf(error)}`;
    }));
  }
  return document.toJS() as unknown;
}
