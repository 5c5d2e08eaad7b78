import path from 'node:path';
import type { SourceConfigOf } from '../../config/index.ts';
import { readFiles } from '../file-loader.ts';

/** `filesystem`: files under a local path or a `file://` URL; object storage (`s3://`…) is not readable yet. */
export const filesystemLoader = readFiles<SourceConfigOf<'filesystem'>>((source, projectDir) => {
  const url = source.filesystem.bucket_url;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) {
    return { unsupported: `its files in ${url}: object storage is not readable yet; point bucket_url at a local folder` };
  }
  return { directory: path.resolve(projectDir, url.replace(/^file:\/\//, '')), pattern: source.filesystem.file_pattern };
});
