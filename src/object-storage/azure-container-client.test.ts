import { describe, expect, it } from 'vitest';
import { AzureContainerClient } from './azure-container-client.ts';
import { BucketError } from './object-lister.ts';

describe('AzureContainerClient', () => {
  it('fails its first call, not its making, on a connection string Azure does not take, naming no key', async () => {
    const key = 'c2VjcmV0LWtleS1ub3QtdG8tc2hvdw==';
    const client = new AzureContainerClient('az://exports/2026', { useSsl: true, connectionString: `AccountName=acme;AccountKey=${key};NoEndpointHere` });
    const failure = await client.pages('2026/').next().then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(BucketError);
    expect((failure as BucketError).transient).toBe(false);
    expect((failure as Error).message).toMatch(/^The connection string of az:\/\/exports is not one Azure takes: /);
    expect((failure as Error).message).not.toContain(key);
  });
});
