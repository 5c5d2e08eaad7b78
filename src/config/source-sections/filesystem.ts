import { z } from 'zod';
import { EnvVarName, NonEmptyString } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

/** The spec shows no fields for filesystem; these follow local_files, with a URL because the files may live in cloud object storage. */
export const FilesystemSection = z.strictObject({
  /** A local path or an object-storage URL such as `s3://bucket/folder`. */
  bucket_url: NonEmptyString,
  file_pattern: NonEmptyString.default('*'),
  credentials_env: EnvVarName.optional(),
  notes: z.string().optional(),
});
export type FilesystemSection = z.output<typeof FilesystemSection>;

export const filesystemType = defineSourceType({
  key: 'filesystem', category: 'Local & Custom', authType: 'None', wizard: false, wizardDisabledReason: 'hidden; use local_files, or filesystem by hand for cloud object storage', incremental: false,
  section: 'own', schema: FilesystemSection,
});
