import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources } from './sources-config.ts';

function problemsOf(config: string): readonly string[] {
  try {
    parseSources(`sources:\n  - name: shop\n    type: storefront\n    generic_config: ${config}\n`);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('storefront generic_config', () => {
  it('applies the defaults to a shop handle', () => {
    const [source] = parseSources('sources:\n  - name: shop\n    type: storefront\n    generic_config: {shop: acme}\n');
    expect(source?.type === 'storefront' ? source.generic_config : undefined).toEqual({
      shop: 'acme', access_token_env: 'STOREFRONT_ACCESS_TOKEN', api_version: '2025-07', resources: ['orders', 'customers', 'products'], page_size: 250,
    });
  });

  it('names each wrong key with its path', () => {
    expect(problemsOf('{shop: acme, access_token_env: shpat, api_version: "2025-08", resources: [orders, refunds], page_size: 500}')).toEqual([
      'sources.yml: sources[0].generic_config.access_token_env: "shpat" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.api_version: expected an API version like 2025-07, got "2025-08"',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of orders, customers, products, custom_collections, smart_collections, locations, got "refunds"',
      'sources.yml: sources[0].generic_config.page_size: must be at most 250',
    ]);
  });

  it('requires the shop unless base_url replaces the root, and a date range in order', () => {
    expect(problemsOf('{start_date: "2026-02-01", end_date: "2026-01-01"}')).toEqual([
      'sources.yml: sources[0].generic_config.shop: required unless base_url is set',
      'sources.yml: sources[0].generic_config.end_date: must not be before start_date',
    ]);
    expect(problemsOf('{shop: "Acme Store"}')).toEqual([
      'sources.yml: sources[0].generic_config.shop: "Acme Store" is not a shop: use its handle (acme) or myshopify domain (acme.myshopify.com)',
    ]);
  });
});
