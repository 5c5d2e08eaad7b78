import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.ts';
import { parseOrThrow } from './format-issues.ts';
import { ProjectConfigSchema, type ProjectConfig } from './project-config.ts';
import { isMissingFile, readProjectFile } from './project-files.ts';
import type { ProjectPaths } from './project-paths.ts';

/** Replaces a file through a temp file, fsync and rename, so a crash leaves the old or the new file, never half. */
export function writeFileAtomically(file: string, content: string, mode: number): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const descriptor = openSync(temporary, 'wx', mode);
    try {
      writeSync(descriptor, content);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** One setting of project.yml: where it is (`['warehouse', 'data_path']`) and its new value. */
export type ProjectSetting = readonly [keyPath: readonly string[], value: unknown];

/** Sets one section of project.yml, keeping its comments; the result is validated before it is written. */
export function setProjectSetting(paths: ProjectPaths, keyPath: readonly string[], value: unknown): void {
  setProjectSettings(paths, [[keyPath, value]]);
}

/** Sets several settings at once, validated together (one may only be valid beside another), in one write. */
export function setProjectSettings(paths: ProjectPaths, settings: readonly ProjectSetting[]): void {
  writeFileAtomically(paths.projectFile, projectFileWith(paths, settings).text, 0o644);
}

/** The project's configuration as it would be with one setting changed: ConfigError when that would be invalid. Writes nothing. */
export function configWithSetting(paths: ProjectPaths, keyPath: readonly string[], value: unknown): ProjectConfig {
  return configWithSettings(paths, [[keyPath, value]]);
}

/** The project's configuration as it would be with these settings changed, as configWithSetting. */
export function configWithSettings(paths: ProjectPaths, settings: readonly ProjectSetting[]): ProjectConfig {
  return projectFileWith(paths, settings).config;
}

/** project.yml's text with the settings changed, and the configuration it says, validated. */
function projectFileWith(paths: ProjectPaths, settings: readonly ProjectSetting[]): { text: string; config: ProjectConfig } {
  const document = parseDocument(readProjectFile(paths.projectFile, paths));
  for (const [keyPath, value] of settings) document.setIn(keyPath, value);
  const config = parseOrThrow(ProjectConfigSchema, document.toJS(), path.relative(paths.root, paths.projectFile));
  return { text: document.toString(), config };
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Throws ConfigError when NAME=value cannot be written to .env as it is; lets callers check before writing anything. */
export function checkEnvValue(name: string, value: string): void {
  if (!ENV_NAME.test(name)) throw new ConfigError([`${name} is not an environment variable name`]);
  if (/[\r\n']/.test(value)) throw new ConfigError([`The value for ${name} must be one line without single quotes`]);
}

/** Sets NAME=value in the project's .env (mode 0600), replacing an earlier line for the same name. */
export function setEnvValue(paths: ProjectPaths, name: string, value: string): void {
  checkEnvValue(name, value);
  let lines: string[] = [];
  try {
    lines = readFileSync(paths.envFile, 'utf8').split('\n');
  } catch (error) {
    if (!isMissingFile(error)) throw error;
  }
  const kept = lines.filter((line) => !line.startsWith(`${name}=`) && line !== '');
  kept.push(`${name}='${value}'`);
  writeFileAtomically(paths.envFile, `${kept.join('\n')}\n`, 0o600);
}

/** Removes NAME's line from the project's .env; nothing happens when it has none. */
export function removeEnvValue(paths: ProjectPaths, name: string): void {
  let lines: string[];
  try {
    lines = readFileSync(paths.envFile, 'utf8').split('\n');
  } catch (error) {
    if (isMissingFile(error)) return;
    throw error;
  }
  const kept = lines.filter((line) => !line.startsWith(`${name}=`) && line !== '');
  if (kept.length === lines.filter((line) => line !== '').length) return;
  writeFileAtomically(paths.envFile, kept.length === 0 ? '' : `${kept.join('\n')}\n`, 0o600);
}
