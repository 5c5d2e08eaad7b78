import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
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

const restApi = (headers: string) => [
  'sources:', '  - name: api', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: none',
  `      headers: ${headers}`, '      endpoints: [{ path: /x }]', '',
].join('\n');

const nativePipeline = (kwargs: string) => [
  'sources:', '  - name: pipe', '    type: native_pipeline', '    native_pipeline:', '      source_module: my_source', '      source_function: load',
  `      function_kwargs: ${kwargs}`, '',
].join('\n');

const HEADER_ADVICE = 'looks like a secret written into sources.yml; use auth_type with auth_token_env, or keep it in an environment variable and write env:NAME here';
const KWARG_ADVICE = 'looks like a secret written into sources.yml; keep it in an environment variable and write env:NAME here';

describe('secret literals in sources.yml', () => {
  it.each([
    ['Authorization', 'Bearer abcdef123456'],
    ['X-Api-Key', 'plain-words'],
    ['X-Custom', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    ['X-Custom', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['X-Custom', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['X-Trace', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdI'],
  ])('refuses a rest_api header %s with a literal credential, without repeating it', (name, value) => {
    const problems = problemsOf(restApi(JSON.stringify({ [name]: value })));
    expect(problems).toEqual([`sources.yml: sources[0].rest_api.headers.${name}: ${HEADER_ADVICE}`]);
    expect(problems.join('\n')).not.toContain(value);
  });

  it('takes ordinary header values and env: references for the secret ones', () => {
    expect(problemsOf(restApi('{Accept: application/json, X-Tenant: acme-eu, Authorization: "env:API_AUTHORIZATION", User-Agent: "quarry/1.0"}'))).toEqual([]);
    expect(problemsOf(restApi('{X-Api-Key: "env:lower"}'))).toEqual([
      'sources.yml: sources[0].rest_api.headers.X-Api-Key: "env:lower" is not an environment reference: write env:NAME with capital letters, digits and underscores',
    ]);
  });

  it('refuses secret-looking function_kwargs of a native_pipeline, nested ones too, and takes env: references', () => {
    expect(problemsOf(nativePipeline('{api_key: abc123, options: {client_secret: s3cr3t}, tokens: [sk_test_4eC39HqLyjWDarjtT1zdp7dc]}'))).toEqual([
      `sources.yml: sources[0].native_pipeline.function_kwargs.api_key: ${KWARG_ADVICE}`,
      `sources.yml: sources[0].native_pipeline.function_kwargs.options.client_secret: ${KWARG_ADVICE}`,
      `sources.yml: sources[0].native_pipeline.function_kwargs.tokens[0]: ${KWARG_ADVICE}`,
    ]);
    expect(problemsOf(nativePipeline('{api_key: "env:PIPE_KEY", start_date: "2024-01-01", table_names: [orders, customers], page_size: 100}'))).toEqual([]);
  });
});
