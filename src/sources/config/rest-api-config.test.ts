import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources } from './sources-config.ts';

function problemsOf(yaml: string): string[] {
  try {
    parseSources(yaml);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
}

describe('rest_api sections', () => {
  it('refuses two endpoints that would load into one table, naming both', () => {
    const yaml = [
      'sources:', '  - name: api', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: none',
      '      endpoints:', '        - path: /v1/users', '        - path: /v2/users/', '        - { path: /v2/users, table_name: users_v2 }', '',
    ].join('\n');
    expect(problemsOf(yaml)).toEqual([
      'sources.yml: sources[0].rest_api.endpoints[1].table_name: endpoints[0] loads into the table users too; give one of them its own table_name',
    ]);
  });

  it('takes a request timeout between 1 and 600 seconds', () => {
    const yaml = (timeout: string) => [
      'sources:', '  - name: api', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: none',
      `      timeout_seconds: ${timeout}`, '      endpoints: [{ path: /x }]', '',
    ].join('\n');
    expect(problemsOf(yaml('5'))).toEqual([]);
    expect(problemsOf(yaml('0'))).toHaveLength(1);
  });
});
