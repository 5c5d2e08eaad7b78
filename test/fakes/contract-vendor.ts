import type { FakeApi } from '../support/fake-api.ts';
import type { TestQuarry } from '../support/quarry.ts';

/**
 * What the engine contract test (test/sources/connector-contract.test.ts) needs of a vendor's fake: the fake
 * started with a few pages of records, the source that reads them, and a way to refuse its credential
 * (unless the vendor publishes its data to anyone, as Chess.com does).
 */
export type ContractVendor =
  | { readonly type: string; readonly anonymous?: false; start(): Promise<CredentialedFake> }
  | { readonly type: string; readonly anonymous: true; start(): Promise<ContractFake> };

export interface ContractFake {
  readonly api: FakeApi;
  /** The source's section in sources.yml, one YAML line each, from `<section>:` on (indented by the test). */
  readonly section: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** A path the connector reads page by page; its second request (the first, for one-request sources) fails. */
  readonly pagedPath: string;
  readonly faultAtRequest?: number;
  /** The raw table loaded from `pagedPath`, and what identifies its records: a column, or a SQL tuple of columns. */
  readonly table: string;
  readonly key: string;
  /** Stores what the platform keeps for the source besides sources.yml and the environment (an OAuth grant), once it is up. */
  attach?(quarry: TestQuarry): Promise<void>;
  /** Runs before each sync: for a queue, which delivers a message once, makes its messages deliverable again. */
  beforeSync?(): void;
  /** Stops servers besides `api` (an authorization server); `api` is closed by the test. */
  close?(): Promise<void>;
}

export interface CredentialedFake extends ContractFake {
  /** Makes the vendor refuse the credential the source holds; returns what accepts it again. */
  revoke(): () => void;
  /** The one-line error of a sync the vendor refused (after a successful one), given the fake's URL. */
  refusal(url: string): string | RegExp;
}
