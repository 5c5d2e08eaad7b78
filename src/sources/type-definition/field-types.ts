import { z } from 'zod';
import { refuseUrlCredentials } from './url-credentials.ts';

/** Source names become warehouse schema names, hence the lowercase identifier rule and PostgreSQL's 63-character limit. */
export const SOURCE_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const ENV_VAR_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

export const NonEmptyString = z.string().min(1);

export const StringList = z.array(NonEmptyString).min(1);

/** A glob matched against paths relative to the source's folder: it may not climb out of it. */
export const FilePattern = NonEmptyString.refine(
  (pattern) => !pattern.startsWith('/') && !pattern.split(/[\\/]/).includes('..'),
  'must stay inside the folder: no leading / and no .. in the pattern',
);

export const SourceName = z.string()
  .regex(SOURCE_NAME_PATTERN, {
    error: (issue) => `${JSON.stringify(issue.input)} is not a valid name: use lowercase letters, digits and underscores, starting with a letter`,
  })
  .max(63);

export const EnvVarName = z.string().regex(ENV_VAR_NAME_PATTERN, {
  error: (issue) => `${JSON.stringify(issue.input)} is not an environment variable name: use capital letters, digits and underscores, not starting with a digit`,
});

export const CalendarDate = z.iso.date();

/** A vendor account's subdomain becomes part of the API's host name, so it must be one DNS label. */
export const Subdomain = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a subdomain: use letters, digits and inner hyphens`,
});

export function isCalendarDate(text: string): boolean {
  return CalendarDate.safeParse(text).success;
}

export const HttpUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => (issue.code === 'invalid_format' ? `expected an http(s) URL, got ${JSON.stringify(issue.input)}` : undefined),
}).superRefine(refuseUrlCredentials);

/** An identifier a vendor shows as digits; YAML reads an unquoted one as a number, so both spellings are accepted. */
export const NumericId = z.preprocess(
  (value) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value),
  NonEmptyString,
);

/** A list of resources drawn from `lists.available`, defaulting to `lists.default`. */
export function resourceList<const Available extends readonly [string, ...string[]]>(
  lists: { readonly default: readonly Available[number][]; readonly available: Available },
) {
  return z.array(z.enum(lists.available)).min(1).default(() => [...lists.default]);
}

/** Arguments for `.refine` that reject a range ending before it starts; YYYY-MM-DD and YYYY/MM bounds compare as text. */
export function boundsInOrder<const Start extends string, const End extends string>(start: Start, end: End) {
  const isInOrder = (section: Partial<Record<Start | End, string>>): boolean => {
    const from = section[start];
    const to = section[end];
    return from === undefined || to === undefined || from <= to;
  };
  const options: { path: PropertyKey[]; error: string } = { path: [end], error: `must not be before ${start}` };
  return [isInOrder, options] as const;
}

/** Arguments for `.refine` that require `field` unless `alternative` is set (a vendor's host part, unless `base_url` replaces the whole root). */
export function requiredUnless<const Field extends string, const Alternative extends string>(field: Field, alternative: Alternative) {
  const isPresent = (section: Partial<Record<Field | Alternative, unknown>>): boolean =>
    section[field] !== undefined || section[alternative] !== undefined;
  const options: { path: PropertyKey[]; error: string } = { path: [field], error: `required unless ${alternative} is set` };
  return [isPresent, options] as const;
}
