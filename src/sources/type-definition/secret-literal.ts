import type { z } from 'zod';
import { ENV_VAR_NAME_PATTERN } from './field-types.ts';

export const ENV_REFERENCE_PREFIX = 'env:';

/** Names under which a value is a credential whatever it looks like. */
const SECRET_NAME = /authorization|token|secret|passw(or)?d|passwd|pwd|api[-_]?key|access[-_]?key|private[-_]?key|credential|cookie|signature|session|bearer/i;
/** Values that are credentials whatever they are called: an auth scheme, a vendor key prefix, a JWT, a private key. */
const SECRET_VALUE = [
  /^(bearer|basic|token|digest)\s+\S{8,}/i,
  /^(sk|pk|rk)_(live|test)_\w{8,}/,
  /^(ghp|gho|ghu|ghs|github_pat|glpat|xox[abposr])[-_]\w{8,}/,
  /^AKIA[0-9A-Z]{16}$/,
  /^eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*$/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];
/** A long random-looking token: letters of both cases and digits, nothing a name or an id would hold. */
const HIGH_ENTROPY = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[\w+/=.~-]{32,}$/;

export function isEnvReference(value: string): boolean {
  return value.startsWith(ENV_REFERENCE_PREFIX);
}

/** Whether a value written into sources.yml under that name is a credential that belongs in the environment. */
export function looksSecret(name: string, value: string): boolean {
  if (isEnvReference(value) || value.trim() === '') return false;
  return SECRET_NAME.test(name) || SECRET_VALUE.some((pattern) => pattern.test(value)) || HIGH_ENTROPY.test(value);
}

/**
 * Reports every string in `values` (nested ones included) that is an `env:` reference with a bad name, or a
 * literal that looks like a credential: sources.yml is readable by anyone who can read the project and is
 * shown to viewers, so a secret in it is a secret given away. `advice` says where the secret goes instead.
 */
export function refuseSecretLiterals(values: Readonly<Record<string, unknown>>, context: z.RefinementCtx, advice: string): void {
  const visit = (value: unknown, name: string, path: readonly (string | number)[]): void => {
    if (typeof value === 'string') {
      if (isEnvReference(value)) {
        if (!ENV_VAR_NAME_PATTERN.test(value.slice(ENV_REFERENCE_PREFIX.length))) {
          context.addIssue({
            code: 'custom', path: [...path], input: value,
            message: `${JSON.stringify(value)} is not an environment reference: write env:NAME with capital letters, digits and underscores`,
          });
        }
      } else if (looksSecret(name, value)) {
        // The value itself stays out of the message: it may be a real credential.
        context.addIssue({ code: 'custom', path: [...path], input: undefined, message: `looks like a secret written into sources.yml; ${advice}` });
      }
      return;
    }
    if (Array.isArray(value)) value.forEach((item: unknown, index) => { visit(item, name, [...path, index]); });
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) visit(item, key, [...path, key]);
    }
  };
  for (const [key, value] of Object.entries(values)) visit(value, key, [key]);
}
