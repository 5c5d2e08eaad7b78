import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { describeKind } from './yaml-value.ts';

export type Validation<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly problems: readonly string[] };

/** Parses `data` with `schema`, or throws one ConfigError listing every problem as `label: path: message`. */
export function parseOrThrow<Schema extends z.ZodType>(schema: Schema, data: unknown, label: string): z.output<Schema> {
  const result = validate(schema, data, label);
  if (result.success) return result.data;
  throw new ConfigError(result.problems);
}

/** Parses `data`, found at `at` inside the file, and returns its value or every problem as `label: path: message`. */
export function validate<Schema extends z.ZodType>(
  schema: Schema, data: unknown, label: string, at: readonly PropertyKey[] = [],
): Validation<z.output<Schema>> {
  const result = schema.safeParse(data, { error: describeIssue });
  if (result.success) return { success: true, data: result.data };
  return {
    success: false,
    problems: result.error.issues.map((issue) => formatProblem(label, [...at, ...issue.path], issue.message)),
  };
}

export function formatProblem(label: string, path: readonly PropertyKey[], message: string): string {
  return `${label}: ${formatPath(path)}: ${message}`;
}

/** `['sources', 2, 'rest_api', 'base_url']` → `sources[2].rest_api.base_url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

const EXPECTED_KINDS: Readonly<Record<string, string>> = { object: 'mapping', array: 'list', int: 'integer' };

function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'required';
      const got = issue.expected === 'int' && typeof issue.input === 'number' ? String(issue.input) : describeKind(issue.input);
      return `expected ${EXPECTED_KINDS[issue.expected] ?? issue.expected}, got ${got}`;
    }
    case 'invalid_value':
      if (issue.values.length === 1) return `expected ${JSON.stringify(issue.values[0])}, got ${describeValue(issue.input)}`;
      return `expected one of ${issue.values.map(String).join(', ')}, got ${describeValue(issue.input)}`;
    case 'too_small':
      return describeBound(issue.origin, Number(issue.minimum), issue.inclusive !== false, 'least');
    case 'too_big':
      return describeBound(issue.origin, Number(issue.maximum), issue.inclusive !== false, 'most');
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'url') return `expected a URL, got ${describeValue(issue.input)}`;
      if (issue.format === 'email') return `expected an email address, got ${describeValue(issue.input)}`;
      if (issue.format === 'date') return `expected a date YYYY-MM-DD, got ${describeValue(issue.input)}`;
      return `${describeValue(issue.input)} does not match ${issue.pattern ?? issue.format}`;
    default:
      return undefined;
  }
}

function describeBound(origin: string, limit: number, inclusive: boolean, side: 'least' | 'most'): string {
  if ((origin === 'string' || origin === 'array') && side === 'least' && limit === 1) return 'must not be empty';
  if (origin === 'string') return `must have at ${side} ${limit} character${limit === 1 ? '' : 's'}`;
  if (origin === 'array') return `must have at ${side} ${limit} item${limit === 1 ? '' : 's'}`;
  if (!inclusive) return `must be ${side === 'least' ? 'greater' : 'less'} than ${limit}`;
  return `must be at ${side} ${limit}`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return describeKind(value);
}
