import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { serializeProjectConfig, type ProjectPaths } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import { defaultSourcesYaml } from '../sources/config/index.ts';

/** Writes a new project's configuration files; refuses a folder that already holds a project. */
export function createProjectFiles(paths: ProjectPaths, options: { name: string; organization: string; sourcesYaml?: string; autoTransform?: boolean }): void {
  if (existsSync(paths.projectFile)) {
    throw new ConfigError([`${paths.root} already holds a Quarry project (.quarry/project.yml exists)`]);
  }
  mkdirSync(paths.configDir, { recursive: true, mode: 0o700 });
  mkdirSync(paths.runDir, { recursive: true });
  mkdirSync(paths.warehouseDir, { recursive: true });
  mkdirSync(paths.dataDir, { recursive: true });
  writeFileSync(paths.secretKeyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  writeFileSync(paths.sourcesFile, options.sourcesYaml ?? defaultSourcesYaml(), { flag: 'wx' });
  if (!existsSync(paths.envFile)) {
    writeFileSync(paths.envFile, '# Credentials for sources (NAME=value). Never commit this file.\n', { mode: 0o600 });
  }
  writeFileSync(paths.projectFile, serializeProjectConfig({
    name: options.name,
    organization: options.organization,
    web: { host: '127.0.0.1', port: 8800 },
    auth: { preset: 'local', password_max_age_days: 0 },
    limits: { max_upload_mb: 100, login_requests_per_minute: 10, api_requests_per_minute: 200 },
    ...(options.autoTransform === true ? { watcher: { auto_transform: true } } : {}),
  }), { flag: 'wx' });
}
