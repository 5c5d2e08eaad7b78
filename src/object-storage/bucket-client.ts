import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { describeError } from '../errors.ts';
import { bucketOf, bucketUrlOf, endpointOf, pathStyleOf, schemeOf, withoutCredentials, type ObjectStorageAccess } from './access.ts';
import { BucketError, type ListedObject, type ObjectLister } from './object-lister.ts';

/** How long connecting to the endpoint may take, and a request may go without a byte of its answer. */
const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;

/** S3's limit for one DeleteObjects request. */
const DELETE_BATCH = 1000;

/**
 * Node's way to a bucket of S3-compatible object storage, for what DuckDB does not do: byte-exact copies of files
 * (the lake's data files, backups), and listings that say each object's ETag, one page at a time.
 */
export class BucketClient implements ObjectLister {
  readonly bucket: string;
  /** `s3://bucket` (or `gs://`): what the keys it lists are URLs under. */
  readonly url: string;
  readonly #client: S3Client;
  readonly #access: ObjectStorageAccess;
  readonly #signal: AbortSignal | undefined;

  /**
   * `url`: any `s3://bucket/...` URL of the bucket. Without keys its requests go unsigned, as DuckDB's do: the SDK's
   * own credential chain (the host's AWS variables, ~/.aws, the cloud's metadata service) is never consulted, since a
   * source's settings come from an editor, not from the host. `signal` stops every request it is running.
   */
  constructor(url: string, access: ObjectStorageAccess, signal?: AbortSignal) {
    this.bucket = bucketOf(url);
    this.url = bucketUrlOf(url);
    this.#access = access;
    this.#signal = signal;
    const { keyId, secret } = access;
    const gcs = schemeOf(url) === 'gs';
    const anonymous = keyId === undefined || secret === undefined;
    this.#client = new S3Client({
      // GCS's XML API signs with the region `auto`.
      region: access.region ?? (gcs ? 'auto' : 'us-east-1'),
      ...access.endpoint === undefined && !gcs ? {} : { endpoint: `${access.useSsl ? 'https' : 'http'}://${endpointOf(url, access.endpoint)}` },
      forcePathStyle: pathStyleOf(url, access.urlStyle),
      credentials: anonymous ? { accessKeyId: '', secretAccessKey: '' } : { accessKeyId: keyId, secretAccessKey: secret },
      ...anonymous ? { signer: { sign: <Request>(request: Request): Promise<Request> => Promise.resolve(request) } } : {},
      // S3-compatible servers differ in the newer checksums; the ones S3 itself requires are still sent.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 4,
      // An endpoint that takes the connection and never answers must not hold a sync (and the lake's writer) for ever.
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    });
  }

  /** The objects whose keys start with `prefix`, a page (up to a thousand) at a time, in key order. */
  async *pages(prefix: string): AsyncGenerator<ListedObject[]> {
    let token: string | undefined;
    do {
      const page = await this.#call(`list ${this.url}/${prefix}`, () => this.#client.send(new ListObjectsV2Command({
        Bucket: this.bucket, Prefix: prefix, ContinuationToken: token,
      }), { abortSignal: this.#signal }));
      yield (page.Contents ?? []).flatMap((entry) => entry.Key === undefined ? [] : [{
        key: entry.Key, size: entry.Size ?? 0, etag: (entry.ETag ?? '').replaceAll('"', ''), lastModified: entry.LastModified,
      }]);
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** The names of the "folders" right under `prefix` (keys up to their next slash), in key order: one request per thousand. */
  async folders(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#call(`list ${this.url}/${prefix}`, () => this.#client.send(new ListObjectsV2Command({
        Bucket: this.bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token,
      }), { abortSignal: this.#signal }));
      for (const common of page.CommonPrefixes ?? []) if (common.Prefix !== undefined) found.push(common.Prefix.slice(prefix.length).replace(/\/$/, ''));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return found;
  }

  /** Whether the object `key` exists. */
  async exists(key: string): Promise<boolean> {
    return this.#call(`look up ${this.url}/${key}`, async () => {
      try {
        await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: this.#signal });
        return true;
      } catch (error) {
        if (error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return false;
        throw error;
      }
    });
  }

  /** Uploads the file at `file` as `key`, in parts when it is large; the object appears whole or not at all. */
  async upload(file: string, key: string): Promise<void> {
    const body = createReadStream(file);
    try {
      await this.#call(`upload ${file} to ${this.url}/${key}`, () => new Upload({ client: this.#client, params: { Bucket: this.bucket, Key: key, Body: body } }).done());
    } finally {
      body.destroy();
    }
  }

  /** Writes the object `key` to the file `file` (its folder made when missing). */
  async download(key: string, file: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    await this.#call(`download ${this.url}/${key}`, async () => {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: this.#signal });
      if (answer.Body === undefined) throw new BucketError('the server sent no content');
      await pipeline(answer.Body as Readable, createWriteStream(file, { mode: 0o600 }));
    });
  }

  /** Deletes the objects `keys`; a key already gone is no error. */
  async delete(keys: readonly string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      const answer = await this.#call(`delete ${String(batch.length)} object(s) in ${this.url}`, () => this.#client.send(new DeleteObjectsCommand({
        Bucket: this.bucket, Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
      }), { abortSignal: this.#signal }));
      const failed = answer.Errors?.[0];
      if (failed !== undefined) throw new BucketError(`Could not delete ${this.url}/${failed.Key ?? ''}: ${failed.Message ?? failed.Code ?? 'refused'}`);
    }
  }

  close(): void {
    this.#client.destroy();
  }

  async #call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof BucketError) throw error;
      if (error instanceof S3ServiceException && error.name === 'NoSuchBucket') {
        throw new BucketError(`Could not ${what}: the bucket ${this.bucket} does not exist there; create it first`, { cause: error });
      }
      const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
      const reason = error instanceof S3ServiceException ? `${error.name} (HTTP ${String(status ?? '?')}): ${error.message}` : describeError(error);
      const transient = !(error instanceof S3ServiceException) || status === undefined || status >= 500 || status === 429;
      throw new BucketError(withoutCredentials(`Could not ${what}: ${reason}`, this.#access), { cause: error, transient });
    }
  }
}
