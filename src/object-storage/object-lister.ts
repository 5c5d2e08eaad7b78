/** One object as a listing names it. */
export interface ListedObject {
  /** The whole key, from the bucket's root. */
  readonly key: string;
  readonly size: number;
  /** The server's tag of this version of the object's content (quotes removed); another upload gives another. */
  readonly etag: string;
  readonly lastModified: Date | undefined;
}

/** Something went wrong with the bucket: the message names the bucket and key, never the credentials. */
export class BucketError extends Error {
  /** Whether trying again later may succeed: the endpoint did not answer, or answered 5xx or 429. */
  readonly transient: boolean;
  constructor(message: string, options: { cause?: unknown; transient?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.transient = options.transient ?? false;
  }
}

/** What a source needs of a bucket or container: listings with ETags, a page at a time, and byte-exact downloads. */
export interface ObjectLister {
  /** `s3://bucket`, `gs://bucket` or `az://container`: what the keys it lists are URLs under. */
  readonly url: string;
  /** The objects whose keys start with `prefix`, a page at a time, in key order. */
  pages(prefix: string): AsyncGenerator<ListedObject[]>;
  /** Writes the object `key` to the file `file` (its folder made when missing). */
  download(key: string, file: string): Promise<void>;
  close(): void;
}
