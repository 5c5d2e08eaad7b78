import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DataRoots } from '../config/index.ts';
import type { SourceConfig } from './config/index.ts';
import { fileSourceLocation } from './source-loaders.ts';

/**
 * The folder a saved file source reads, created when it does not exist yet, so a new source can take uploads at
 * once; only inside the data roots (OutsideDataRootsError otherwise), whatever the saved entry says. Returns the
 * folder, relative to the project, when it was created; undefined when it existed or the source reads no folder.
 */
export async function createSourceFolder(source: SourceConfig, dataRoots: DataRoots, projectDir: string): Promise<string | undefined> {
  const location = fileSourceLocation(source, projectDir);
  if (location === undefined || existsSync(location.directory)) return undefined;
  dataRoots.assertContains(location.directory);
  await mkdir(location.directory, { recursive: true });
  return path.relative(projectDir, location.directory);
}

/**
 * For a connection test of a form not saved yet: what saving will do about a folder that does not exist yet,
 * which is no failure, as saving creates it. Undefined when the source reads no folder or it exists.
 */
export function folderToCreate(source: SourceConfig, projectDir: string): string | undefined {
  const location = fileSourceLocation(source, projectDir);
  if (location === undefined || existsSync(location.directory)) return undefined;
  const folder = path.relative(projectDir, location.directory);
  return `${folder} does not exist yet: saving the source creates it, then you can upload files into it`;
}
