import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ContainerClient } from '@azure/storage-blob';
import { describeError } from '../errors.ts';
import { bucketOf, bucketUrlOf, withoutCredentials, type ObjectStorageAccess } from './access.ts';
import { BucketError, type ListedObject, type ObjectLister } from './object-lister.ts';

/** Keys a listing page asks for, as S3's. */
const PAGE_SIZE = 1000;
/** How long one try of a request may take, and how many tries: an endpoint that never answers must not hold a sync. */
const TRY_TIMEOUT_MS = 60_000;
const TRIES = 3;

/** The Azure SDK, loaded by the first container a process lists: most never read Azure, and it is ~40 MB. */
const azureSdk = (): Promise<typeof import('@azure/storage-blob')> => import('@azure/storage-blob');

/**
 * The host an Azure connection string sends requests to: its BlobEndpoint's, or the account's own
 * (`<account>.blob.core.windows.net`); undefined when it names neither.
 */
export function azureHostOf(connectionString: string): string | undefined {
  const fields = new Map(connectionString.split(';').flatMap((part) => {
    const at = part.indexOf('=');
    return at < 0 ? [] : [[part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim()] as const];
  }));
  const endpoint = fields.get('blobendpoint');
  if (endpoint !== undefined) return URL.parse(endpoint)?.hostname.replace(/^\[|\]$/g, '');
  const account = fields.get('accountname');
  return account === undefined ? undefined : `${account}.blob.${fields.get('endpointsuffix') ?? 'core.windows.net'}`;
}

/** A container of Azure Blob Storage, as a source lists and downloads its blobs (DuckDB's azure extension reads them). */
export class AzureContainerClient implements ObjectLister {
  readonly url: string;
  readonly #container: Promise<ContainerClient>;
  readonly #access: ObjectStorageAccess;
  readonly #signal: AbortSignal | undefined;

  /** `url`: any `az://container/...` URL of the container; the connection string holds the account and its key. */
  constructor(url: string, access: ObjectStorageAccess, signal?: AbortSignal) {
    this.url = bucketUrlOf(url);
    this.#access = access;
    this.#signal = signal;
    this.#container = azureSdk().then(({ BlobServiceClient }) => BlobServiceClient
      .fromConnectionString(access.connectionString ?? '', { retryOptions: { maxTries: TRIES, tryTimeoutInMs: TRY_TIMEOUT_MS } })
      .getContainerClient(bucketOf(url))).catch((error: unknown) => {
      throw new BucketError(withoutCredentials(`The connection string of ${this.url} is not one Azure takes: ${describeError(error).split('\n')[0] ?? ''}`, access), { cause: error });
    });
    // A connection string the SDK refuses fails the first call; never an unhandled rejection.
    this.#container.catch(() => undefined);
  }

  async *pages(prefix: string): AsyncGenerator<ListedObject[]> {
    const container = await this.#call(`list ${this.url}/${prefix}`, () => this.#container);
    const pages = container.listBlobsFlat({ prefix, abortSignal: this.#signal }).byPage({ maxPageSize: PAGE_SIZE });
    for (;;) {
      const page = await this.#call(`list ${this.url}/${prefix}`, () => pages.next());
      if (page.done === true) return;
      yield page.value.segment.blobItems.map((blob) => ({
        key: blob.name, size: blob.properties.contentLength ?? 0, etag: blob.properties.etag.replaceAll('"', ''), lastModified: blob.properties.lastModified,
      }));
    }
  }

  async download(key: string, file: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await this.#call(`download ${this.url}/${key}`, async () => (await this.#container).getBlobClient(key).downloadToFile(file, 0, undefined, { abortSignal: this.#signal }));
  }

  close(): void {
    // The SDK's HTTP client keeps no connection a source must end.
  }

  async #call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof BucketError) throw error;
      const { RestError } = await azureSdk();
      const status = error instanceof RestError ? error.statusCode : undefined;
      if (error instanceof RestError && error.code === 'ContainerNotFound') {
        throw new BucketError(`Could not ${what}: the container ${bucketOf(this.url)} does not exist there; create it first`, { cause: error });
      }
      const reason = error instanceof RestError ? `${error.code ?? 'RestError'} (HTTP ${String(status ?? '?')})` : describeError(error).split('\n')[0] ?? '';
      const transient = status === undefined || status >= 500 || status === 429;
      throw new BucketError(withoutCredentials(`Could not ${what}: ${reason}`, this.#access), { cause: error, transient });
    }
  }
}
