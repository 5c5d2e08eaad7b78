import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources } from './sources-config.ts';

function problemsOf(config: string): readonly string[] {
  try {
    parseSources(`sources:\n  - name: mail\n    type: inbox\n    generic_config: ${config}\n`);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('inbox generic_config', () => {
  it('applies the defaults', () => {
    const [source] = parseSources('sources:\n  - name: mail\n    type: inbox\n    generic_config: {host: imap.example.com}\n');
    expect(source?.type === 'inbox' ? source.generic_config : undefined).toEqual({
      host: 'imap.example.com', tls: true, folder: 'INBOX', username_env: 'INBOX_USERNAME', password_env: 'INBOX_PASSWORD',
    });
  });

  it('names each wrong key with its path, and requires the host', () => {
    expect(problemsOf('{host: imap.example.com, port: 99999, tls: "yes", password_env: secret, start_date: "January"}')).toEqual([
      'sources.yml: sources[0].generic_config.port: must be at most 65535',
      'sources.yml: sources[0].generic_config.tls: expected boolean, got string',
      'sources.yml: sources[0].generic_config.password_env: "secret" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.start_date: expected a date YYYY-MM-DD, got "January"',
    ]);
    expect(problemsOf('{folder: Archive}')).toEqual(['sources.yml: sources[0].generic_config.host: required: the IMAP server host name']);
  });
});
