import { expect } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';

/** The located problems loading this sources.yml text reports; the test fails when it loads without any. */
export function configProblemsOf(yamlText: string): readonly string[] {
  return configProblemsFrom(() => parseSources(yamlText));
}

/** The located problems `load` (a project.yml or sources.yml loader) reports; the test fails when it loads without any. */
export function configProblemsFrom(load: () => unknown): readonly string[] {
  let caught: unknown;
  try {
    load();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return (caught as ConfigError).problems;
}
