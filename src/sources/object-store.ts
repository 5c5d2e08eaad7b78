import { randomUUID } from 'node:crypto';
import { describeError } from '../errors.ts';
import {
  AzureContainerClient, azureHostOf, BucketClient, bucketOf, bucketUrlOf, endpointOf, pathStyleOf, schemeOf, withoutCredentials, type ObjectLister, type ObjectStorageAccess,
} from '../object-storage/index.ts';
import { extensionFile, LAKE_BUCKET_SECRET, objectStorageSecretStatement, quoteIdentifier, quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import { hostOfServer, OutboundRefusedError, type OutboundPolicy } from './outbound/index.ts';
import { requireEnv } from './rest/credentials.ts';
import { SyncFailedError } from './sync-failed-error.ts';

/** How a source reaches a bucket of S3-compatible object storage, as its section says. */
export interface ObjectStoreSettings extends Pick<ObjectStorageAccess, 'endpoint' | 'region' | 'urlStyle' | 'useSsl'> {
  /** `s3://bucket/prefix`, as written. */
  readonly url: string;
  /** The variables holding the keys (never the keys): read when the store is opened. */
  readonly accessKeyIdEnv?: string | undefined;
  readonly secretAccessKeyEnv?: string | undefined;
  /** For an `az://` container: the variable holding its Azure Storage connection string. */
  readonly credentialsEnv?: string | undefined;
}

/** DuckDB's httpfs errors that say the endpoint did not answer, or answered it cannot now: worth trying again later. */
const LOST_CONNECTION = /IO Error: Could not (connect|resolve)|HTTP (HEAD|GET) error .*\(HTTP (5\d\d|429)\b|Connection (reset|refused|timed out)/;


/**
 * A bucket a sync may read, with the credentials read from the project's environment: `grant` lets one DuckDB
 * connection read it for as long as a piece of work lasts.
 */
export class ObjectStore {
  /** The prefix's URL without a trailing slash: `s3://bucket/folder`, or `s3://bucket` for the whole bucket. */
  readonly url: string;
  readonly #access: ObjectStorageAccess;

  private constructor(url: string, access: ObjectStorageAccess) {
    this.url = url.replace(/\/+$/, '');
    this.#access = access;
  }

  /**
   * Reads the credentials and checks, before DuckDB or the S3 client connects, that the endpoint is a host sources
   * may reach (both address the bucket alike: the endpoint and the bucket name are plain host names). Each resolves the
   * name again and connects by itself, so the address cannot be pinned as the policy's other users do: a name that
   * resolves elsewhere the second time is not caught here.
   */
  static async open(settings: ObjectStoreSettings, env: Readonly<Record<string, string | undefined>>, outbound: OutboundPolicy): Promise<ObjectStore> {
    const bucket = bucketOf(settings.url);
    if (bucket === '') throw new SyncFailedError(`${settings.url} names no bucket: write bucket_url as s3://bucket/folder (or gs://, az://)`);
    if (schemeOf(settings.url) === 'az') return ObjectStore.#openContainer(settings, env, outbound);
    const { accessKeyIdEnv, secretAccessKeyEnv } = settings;
    if ((accessKeyIdEnv === undefined) !== (secretAccessKeyEnv === undefined)) {
      throw new SyncFailedError('Set both access_key_id_env and secret_access_key_env, or neither for a public bucket');
    }
    const credentials = accessKeyIdEnv === undefined || secretAccessKeyEnv === undefined ? undefined : {
      keyId: requireEnv(env, accessKeyIdEnv, 'the access key id of the object storage'),
      secret: requireEnv(env, secretAccessKeyEnv, 'the secret access key of the object storage'),
    };
    await ObjectStore.#checkReachable(connectedHost(settings, bucket), settings.url, outbound);
    const { endpoint, region, urlStyle, useSsl } = settings;
    return new ObjectStore(settings.url, { endpoint, region, urlStyle, useSsl, keyId: credentials?.keyId, secret: credentials?.secret });
  }

  /** An Azure container: its connection string (from credentials_env) names the account, its key and its endpoint. */
  static async #openContainer(settings: ObjectStoreSettings, env: Readonly<Record<string, string | undefined>>, outbound: OutboundPolicy): Promise<ObjectStore> {
    if (settings.credentialsEnv === undefined) throw new SyncFailedError(`Set credentials_env to the environment variable holding the Azure Storage connection string of ${settings.url}`);
    const connectionString = requireEnv(env, settings.credentialsEnv, 'the Azure Storage connection string (DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...)');
    const host = azureHostOf(connectionString);
    if (host === undefined) throw new SyncFailedError(`The environment variable ${settings.credentialsEnv} holds no AccountName or BlobEndpoint: it must hold an Azure Storage connection string`);
    await ObjectStore.#checkReachable(host, settings.url, outbound);
    return new ObjectStore(settings.url, { useSsl: true, connectionString });
  }

  static async #checkReachable(host: string, url: string, outbound: OutboundPolicy): Promise<void> {
    try {
      await outbound.resolveReachable(host);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw error;
      throw new SyncFailedError(`Cannot reach ${host}, the object storage endpoint of ${url}: ${describeError(error)}`, { transient: true });
    }
  }

  /**
   * Runs `work` while `connection`'s DuckDB instance holds a temporary secret for the bucket, dropped after, so
   * nothing else that runs on that instance later can read the bucket with it. The secret's statement is never
   * logged, and DuckDB's refusal of it is reported without the statement.
   */
  async grant<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
    await connection.run(`LOAD ${quoteLiteral(extensionFile(schemeOf(this.url) === 'az' ? 'azure' : 'httpfs'))}`);
    await this.#refuseLakeBucket(connection);
    const name = quoteIdentifier(`quarry_object_store_${randomUUID().replaceAll('-', '')}`);
    try {
      await connection.run(objectStorageSecretStatement(name, bucketUrlOf(this.url), this.#access));
    } catch (error) {
      throw new SyncFailedError(`DuckDB refused the object storage settings of ${this.url}: ${this.describe(error)}`);
    }
    try {
      return await work();
    } catch (error) {
      if (!LOST_CONNECTION.test(describeError(error))) throw error;
      throw new SyncFailedError(`The object storage of ${this.url} stopped answering during the sync (${this.describe(error)}); nothing was changed`, { transient: true });
    } finally {
      // A connection whose transaction failed refuses the drop; its instance then ends with the job, and the secret with it.
      await connection.run(`DROP TEMPORARY SECRET ${name}`).catch(() => undefined);
    }
  }

  /** A client of the bucket for listing (DuckDB's listing says no ETag) and downloads, stopped by `signal`; the caller closes it. */
  client(signal?: AbortSignal): ObjectLister {
    return schemeOf(this.url) === 'az' ? new AzureContainerClient(this.url, this.#access, signal) : new BucketClient(this.url, this.#access, signal);
  }

  /**
   * Refuses the bucket the lake's data is in (the writer's connection holds its secret): DuckDB would read its keys
   * with the lake's credentials and endpoint, whatever this source's settings say. The lake's tables are queried, not synced.
   */
  async #refuseLakeBucket(connection: DuckDBConnection): Promise<void> {
    const scopes = await connection.runAndReadAll(`SELECT unnest(scope) FROM duckdb_secrets() WHERE name = ${quoteLiteral(LAKE_BUCKET_SECRET)}`);
    if (scopes.getRows().some(([scope]) => bucketUrlOf(String(scope)) === bucketUrlOf(this.url))) {
      throw new SyncFailedError(`${bucketUrlOf(this.url)} is the bucket of the warehouse's own data: a source reads other buckets (query the warehouse's tables instead)`);
    }
  }

  /** The first lines of a DuckDB error, one line, with the credentials taken out should DuckDB ever quote them. */
  describe(error: unknown): string {
    const text = describeError(error).split('\n').map((line) => line.trim()).filter((line) => line !== '').slice(0, 2).join(' ');
    return withoutCredentials(text, this.#access).slice(0, 500);
  }
}

/** The host DuckDB and the S3 client connect to for the bucket: the endpoint's, under the bucket's name unless the style is `path`. */
function connectedHost(settings: ObjectStoreSettings, bucket: string): string {
  const host = hostOfServer(endpointOf(settings.url, settings.endpoint));
  return pathStyleOf(settings.url, settings.urlStyle) ? host : `${bucket}.${host}`;
}
