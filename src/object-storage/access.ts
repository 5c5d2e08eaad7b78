import type { ObjectStoreConfig } from '../config/index.ts';
import { ConfigError } from '../errors.ts';

/** How to reach S3-compatible object storage: the connection settings and the credentials, read from the environment. */
export interface ObjectStorageAccess {
  /** `host:port`; AWS's own when left out. */
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  readonly urlStyle?: ObjectStoreConfig['url_style'];
  readonly useSsl: boolean;
  /** Never logged, never in a connection string: DuckDB gets them as a secret's fields, the S3 client as its credentials. */
  readonly keyId?: string | undefined;
  readonly secret?: string | undefined;
  /** Azure Blob Storage's connection string (its account key inside), for an `az://` container. */
  readonly connectionString?: string | undefined;
}

/**
 * `s3://bucket/key`: S3 or any S3-compatible server; `gs://bucket/key`: Google Cloud Storage through its S3-compatible
 * XML API; `az://container/key`: Azure Blob Storage.
 */
const OBJECT_URL = /^(s3|gs|az):\/\/([^/]*)\/?(.*)$/;

/** Which storage an object URL names. */
export function schemeOf(url: string): 's3' | 'gs' | 'az' {
  const scheme = OBJECT_URL.exec(url)?.[1];
  return scheme === 'gs' || scheme === 'az' ? scheme : 's3';
}

/** The bucket of an `s3://bucket/prefix` (or `gs://`) URL. */
export function bucketOf(url: string): string {
  return OBJECT_URL.exec(url)?.[2] ?? '';
}

/** The key (or key prefix) of an object URL: what follows the bucket and its slash. */
export function keyOf(url: string): string {
  return OBJECT_URL.exec(url)?.[3] ?? '';
}

/** Where a bucket's requests go when its settings name no endpoint: AWS's S3, or GCS's S3-compatible XML API. */
export function endpointOf(url: string, endpoint: string | undefined): string {
  return endpoint ?? (schemeOf(url) === 'gs' ? 'storage.googleapis.com' : 's3.amazonaws.com');
}

/**
 * Whether requests name the bucket in the path rather than the host name: as url_style says, else S3's virtual
 * hosts and GCS's paths, as DuckDB's secrets assume (bucket names being host labels, every client agrees).
 */
export function pathStyleOf(url: string, urlStyle: 'path' | 'vhost' | undefined): boolean {
  return urlStyle === undefined ? schemeOf(url) === 'gs' : urlStyle === 'path';
}

/** The URL of the bucket itself, `s3://bucket`, which a secret's scope names. */
export function bucketUrlOf(url: string): string {
  return `${schemeOf(url)}://${bucketOf(url)}`;
}

/**
 * project.yml's `object_store:` with its credentials taken from `env`. A variable it names and `env` lacks is a
 * configuration problem, said with the variable's name.
 */
export function objectStorageAccess(config: ObjectStoreConfig, env: Readonly<Record<string, string | undefined>>): ObjectStorageAccess {
  const read = (name: string | undefined, holds: string): string | undefined => {
    if (name === undefined) return undefined;
    const value = env[name]?.trim();
    if (value === undefined || value === '') throw new ConfigError([`object_store: the environment variable ${name} is not set; it must hold ${holds} (put it in the project's .env file)`]);
    return value;
  };
  return {
    endpoint: config.endpoint, region: config.region, urlStyle: config.url_style, useSsl: config.use_ssl,
    keyId: read(config.access_key_id_env, 'the access key id of the object storage'),
    secret: read(config.secret_access_key_env, 'the secret access key of the object storage'),
  };
}

/** `text` with the credentials taken out, should DuckDB or a server ever quote them. */
export function withoutCredentials(text: string, access: ObjectStorageAccess | undefined): string {
  const accountKey = /AccountKey=([^;]+)/.exec(access?.connectionString ?? '')?.[1];
  let cleaned = text;
  for (const value of [access?.connectionString, accountKey, access?.secret, access?.keyId]) {
    if (value !== undefined && value.length >= 4) cleaned = cleaned.replaceAll(value, '***');
  }
  return cleaned;
}
