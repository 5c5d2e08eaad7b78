import { expect } from 'vitest';
import { parseSources } from '../../src/config/index.ts';
import { ConfigError } from '../../src/errors.ts';

/** The located problems loading this sources.yml text reports; the test fails when it loads without any. */
export function configProblemsOf(yamlText: string): readonly string[] {
  let caught: unknown;
  try {
    parseSources(yamlText);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return (caught as ConfigError).problems;
}
