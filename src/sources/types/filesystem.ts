import path from 'node:path';
import { z } from 'zod';
import { readFiles } from '../file-loader.ts';
import type { SourceLoader } from '../source-loader.ts';
import { EnvVarName, FilePattern, NonEmptyString, defineSourceType } from '../type-definition/index.ts';

/** The spec shows no fields for filesystem; these follow local_files, with a URL because the files may live in cloud object storage. */
export const FilesystemSection = z.strictObject({
  /** A local path or an object-storage URL such as `s3://bucket/folder`. */
  bucket_url: NonEmptyString,
  file_pattern: FilePattern.default('*'),
  credentials_env: EnvVarName.optional(),
  notes: z.string().optional(),
});
export type FilesystemSection = z.output<typeof FilesystemSection>;

/** `filesystem`: files under a local path or a `file://` URL; object storage (`s3://`…) is not readable yet. */
const filesystemLoader: SourceLoader = readFiles<FilesystemSection>((section, projectDir) => {
  const url = section.bucket_url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    return { unsupported: `its files in ${url}: object storage is not readable yet; point bucket_url at a local folder` };
  }
  return { directory: path.resolve(projectDir, url.replace(/^file:\/\//, '')), field: 'bucket_url', pattern: section.file_pattern };
});

export const filesystemType = defineSourceType({
  key: 'filesystem', category: 'Local & Custom', authType: 'None', wizard: false, wizardDisabledReason: 'hidden; use local_files, or filesystem by hand for cloud object storage', incremental: false,
  section: 'own', schema: FilesystemSection,
  loader: filesystemLoader,
});
