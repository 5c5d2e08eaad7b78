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
}

/** The bucket of an `s3://bucket/prefix` URL. */
export function bucketOf(url: string): string {
  return url.slice('s3://'.length).split('/')[0] ?? '';
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
  let cleaned = text;
  for (const value of [access?.secret, access?.keyId]) if (value !== undefined && value.length >= 4) cleaned = cleaned.replaceAll(value, '***');
  return cleaned;
}
