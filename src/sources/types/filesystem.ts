import path from 'node:path';
import { z } from 'zod';
import { readFiles } from '../file-loader.ts';
import { BUCKET_URL, BUCKET_URL_PROBLEM, Endpoint, URL_STYLES } from '../../config/index.ts';
import type { SourceLoader } from '../source-loader.ts';
import { EnvVarName, FilePattern, NonEmptyString, defineSourceType } from '../type-definition/index.ts';

/** The spec shows no fields for filesystem; these follow local_files, with a URL because the files may live in S3-compatible object storage. */
export const FilesystemSection = z.strictObject({
  /**
   * A local path, a `file://` URL, or a bucket and prefix of object storage: `s3://bucket/folder` (S3 or a server
   * compatible with it), `gs://bucket/folder` (Google Cloud Storage, through its S3-compatible API with HMAC keys),
   * `az://container/folder` (Azure Blob Storage, its connection string in the variable `credentials_env` names).
   */
  bucket_url: NonEmptyString.refine((url) => !/^(s3|gs|az):\/\//.test(url) || BUCKET_URL.test(url), BUCKET_URL_PROBLEM),
  file_pattern: FilePattern.default('*'),
  credentials_env: EnvVarName.optional(),
  /** The S3 endpoint as `host:port`; AWS's own when left out. */
  endpoint: Endpoint.optional(),
  region: NonEmptyString.optional(),
  url_style: z.enum(URL_STYLES).optional(),
  use_ssl: z.boolean().default(true),
  access_key_id_env: EnvVarName.optional(),
  secret_access_key_env: EnvVarName.optional(),
  notes: z.string().optional(),
});
export type FilesystemSection = z.output<typeof FilesystemSection>;

/** `filesystem`: files under a local path or a `file://` URL, or objects under an `s3://` or `gs://` prefix. */
const filesystemLoader: SourceLoader = readFiles<FilesystemSection>((section, projectDir) => {
  const url = section.bucket_url;
  if (/^(s3|gs|az):\/\//.test(url)) {
    return {
      objects: {
        url, endpoint: section.endpoint, region: section.region, urlStyle: section.url_style, useSsl: section.use_ssl,
        accessKeyIdEnv: section.access_key_id_env, secretAccessKeyEnv: section.secret_access_key_env, credentialsEnv: section.credentials_env,
      },
      pattern: section.file_pattern,
    };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    return {
      unsupported: `its files in ${url}: s3:// (S3 and compatible servers), gs:// (Google Cloud Storage, with HMAC keys) and az:// `
        + '(Azure Blob Storage) are readable, not this scheme; point bucket_url at one of those or at a local folder',
    };
  }
  return { directory: path.resolve(projectDir, url.replace(/^file:\/\//, '')), field: 'bucket_url', pattern: section.file_pattern };
});

export const filesystemType = defineSourceType({
  key: 'filesystem', category: 'Local & Custom', authType: 'None', wizard: false, wizardDisabledReason: 'hidden; use local_files, or filesystem by hand for cloud object storage', incremental: false,
  offeredBecause: 'offered for files in object storage (s3://bucket/folder, gs://bucket/folder, az://container/folder), which it now reads; for a folder on this machine, local_files is the simpler choice',
  section: 'own', schema: FilesystemSection,
  loader: filesystemLoader,
});
