import type { FakeApi } from '../support/fake-api.ts';

/**
 * What the engine contract test (test/sources/connector-contract.test.ts) needs of a vendor's fake: the fake
 * started with a few pages of records, the source that reads them, and a way to refuse its credential.
 */
export interface ContractVendor {
  /** The source type whose connector reads this vendor. */
  readonly type: string;
  start(): Promise<ContractFake>;
}

export interface ContractFake {
  readonly api: FakeApi;
  /** The source's section in sources.yml, one YAML line each, from `<section>:` on (indented by the test). */
  readonly section: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** A path the connector reads page by page; its second request (the first, for one-request sources) fails. */
  readonly pagedPath: string;
  readonly faultAtRequest?: number;
  /** The raw table loaded from `pagedPath`, and the column that identifies its records. */
  readonly table: string;
  readonly key: string;
  /** Makes the vendor refuse the credential the source holds; returns what accepts it again. */
  revoke(): () => void;
  /** The one-line error of a sync the vendor refused (after a successful one), given the fake's URL. */
  refusal(url: string): string | RegExp;
  /** Stops servers besides `api` (an authorization server); `api` is closed by the test. */
  close?(): Promise<void>;
}
