import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import path from 'node:path';
import { nearbyProjects } from './nearby-projects.ts';
import { stringify } from 'yaml';
import { ConfigError } from '../errors.ts';
import { deepFreeze } from './deep-freeze.ts';
import { parseOrThrow } from './format-issues.ts';
import { ProjectConfigSchema, type ProjectConfig, type ProjectConfigFile } from './project-config.ts';
import type { ProjectPaths } from './project-paths.ts';
import { readYaml } from './read-yaml.ts';

/** Reads and validates `.quarry/project.yml`; every problem is reported with its location. */
export function loadProjectConfig(paths: ProjectPaths): ProjectConfig {
  const text = readProjectFile(paths.projectFile, paths);
  const label = path.relative(paths.root, paths.projectFile);
  return deepFreeze(parseOrThrow(ProjectConfigSchema, readYaml(text, label) ?? {}, label));
}

export function serializeProjectConfig(config: ProjectConfigFile): string {
  return `# Quarry project settings. Every key is optional except name; defaults are documented in README.md.\n${stringify(config)}`;
}

/** The process environment with the project's `.env` file underneath it (the process wins). */
export function loadEnvironment(paths: ProjectPaths, processEnv: NodeJS.ProcessEnv): Readonly<Record<string, string>> {
  let fileValues: Record<string, string | undefined> = {};
  try {
    fileValues = parseEnv(readFileSync(paths.envFile, 'utf8'));
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
  const merged: Record<string, string> = {};
  for (const [name, value] of [...Object.entries(fileValues), ...Object.entries(processEnv)]) {
    if (value !== undefined) merged[name] = value;
  }
  return Object.freeze(merged);
}

/** The project's 32-byte secret key, used to encrypt secrets at rest. */
export function loadSecretKey(paths: ProjectPaths): Buffer {
  const key = Buffer.from(readProjectFile(paths.secretKeyFile, paths).trim(), 'hex');
  if (key.length !== 32) throw new ConfigError([`${path.relative(paths.root, paths.secretKeyFile)}: expected 64 hex characters`]);
  return key;
}

export function readProjectFile(file: string, paths: ProjectPaths): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) {
      const nearby = file === paths.projectFile ? nearbyProjects(paths.root) : [];
      const hint = nearby.length === 0 ? 'run "quarry init"' : `did you mean ${nearby.map((project) => `--project ${project}`).join(' or ')}? Or run "quarry init"`;
      throw new ConfigError([`${paths.root} is not a Quarry project: ${path.relative(paths.root, file)} is missing (${hint})`]);
    }
    throw error;
  }
}

export function isMissingFile(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
