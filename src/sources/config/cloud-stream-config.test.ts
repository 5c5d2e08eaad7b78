import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources } from './sources-config.ts';

function problemsOf(config: string): readonly string[] {
  try {
    parseSources(`sources:\n  - name: stream\n    type: cloud_stream\n    generic_config: ${config}\n`);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('cloud_stream generic_config', () => {
  it('applies the defaults', () => {
    const [source] = parseSources('sources:\n  - name: stream\n    type: cloud_stream\n    generic_config: {subscription: orders-sub}\n');
    expect(source?.type === 'cloud_stream' ? source.generic_config : undefined).toEqual({
      subscription: 'orders-sub', credentials_env: 'CLOUD_STREAM_CREDENTIALS', batch_size: 1000, max_messages: 100_000, table_name: 'messages',
    });
  });

  it('names each wrong key with its path', () => {
    expect(problemsOf('{subscription: orders-sub, project_id: X, batch_size: 5000, credentials_env: key.json}')).toEqual([
      'sources.yml: sources[0].generic_config.project_id: "X" is not a Google Cloud project id',
      'sources.yml: sources[0].generic_config.credentials_env: "key.json" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.batch_size: must be at most 1000',
    ]);
    expect(problemsOf('{project_id: my-project}')).toEqual(['sources.yml: sources[0].generic_config.subscription: required: the subscription to pull from']);
  });
});
