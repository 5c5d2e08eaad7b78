/**
 * `s3://bucket` or `s3://bucket/prefix` (`gs://` where Google Cloud Storage is meant, `az://container` Azure's): a bucket named as a host name's
 * label, which every S3 client addresses alike (a dot or capital makes some switch to path style), and a prefix of
 * ordinary key characters.
 */
export const BUCKET_URL = /^(s3|gs|az):\/\/[a-z0-9][a-z0-9-]{1,61}[a-z0-9](\/[A-Za-z0-9!_.*'()\/-]*)?$/;

/** What a bucket URL that BUCKET_URL refuses is told. */
export const BUCKET_URL_PROBLEM = 'expected s3://bucket/prefix: a bucket name of 3 to 63 lower-case letters, digits and hyphens, and a prefix of letters, digits and ! _ . * \' ( ) / -';
