import path from 'node:path';
import { restoreBackup, takeBackup } from '../backup/index.ts';
import { loadProjectConfig, projectPaths } from '../config/index.ts';
import { SERVICE_VERSION } from '../context.ts';
import { CliError } from './cli-error.ts';

/** `quarry backup DIR`: a consistent copy of the project, taken while it runs. */
export async function backupProject(into: string, options: { project: string; waitSeconds?: number }): Promise<string> {
  const paths = projectPaths(options.project);
  const config = loadProjectConfig(paths);
  if (config.warehouse.catalog.kind === 'postgres') {
    throw new CliError('This project\'s warehouse is a shared lake with a PostgreSQL catalog, which quarry backup cannot copy consistently: back it up as docs/operations.md ("Past one machine") says');
  }
  const summary = await takeBackup({
    paths, projectName: config.name, quarryVersion: SERVICE_VERSION, into, waitSeconds: options.waitSeconds,
    report: (line) => { console.error(line); },
  });
  return `Backed up ${config.name} into ${summary.folder}: ${summary.items.join(', ')} (${String(summary.files)} files).`;
}

/** `quarry restore DIR`: the backup in DIR put back into a folder that holds no project. */
export function restoreProject(from: string, options: { project: string }): string {
  const summary = restoreBackup(from, projectPaths(options.project));
  return [
    `Restored the backup of ${summary.takenAt} into ${summary.project} (${String(summary.files)} files).`,
    `Start it with: quarry start --project ${path.relative(process.cwd(), summary.project) || '.'}`,
  ].join('\n');
}
