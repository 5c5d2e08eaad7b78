import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources } from './sources-config.ts';

function parse(config: string): ReturnType<typeof parseSources> {
  return parseSources(`sources:\n  - name: shop\n    type: document_db\n    generic_config: ${config}\n`);
}

function problemsOf(config: string): readonly string[] {
  try {
    parse(config);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('document_db generic_config', () => {
  it('applies the defaults', () => {
    expect(parse('{}')[0]).toMatchObject({ type: 'document_db', generic_config: { credentials_env: 'DOCUMENT_DB_URL', batch_size: 1000 } });
  });

  it('locates each mistake', () => {
    expect(problemsOf('{ credentials_env: mongo-url, collections: [], batch_size: 0 }')).toEqual([
      'sources.yml: sources[0].generic_config.credentials_env: "mongo-url" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.collections: must not be empty',
      'sources.yml: sources[0].generic_config.batch_size: must be greater than 0',
    ]);
  });

  it('refuses a cursor for a collection that is not read', () => {
    expect(problemsOf('{ collections: [orders], incremental: { order: updatedAt } }')).toEqual([
      'sources.yml: sources[0].generic_config.incremental.order: order is not one of the collections listed (orders)',
    ]);
  });
});
