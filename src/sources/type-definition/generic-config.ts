import { z } from 'zod';
import { ENV_VAR_NAME_PATTERN, HttpUrl } from './field-types.ts';

const ENV_FIELD_SUFFIX = '_env';

/**
 * A `generic_config` section: open key/value pairs passed to the loader, with `base_url` and any
 * `*_env` key checked, plus whatever `shape` a type pins down.
 */
export function genericConfig<const Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject({ base_url: HttpUrl.optional(), ...shape }).superRefine((config, context) => {
    // Runs even when the section failed to parse (`when` below), so every problem is reported at once.
    const parsed: unknown = config;
    if (parsed === null || typeof parsed !== 'object') return;
    for (const [key, value] of Object.entries(parsed)) {
      if (!key.endsWith(ENV_FIELD_SUFFIX) || key in shape) continue;
      if (typeof value !== 'string' || !ENV_VAR_NAME_PATTERN.test(value)) {
        context.addIssue({
          code: 'custom',
          path: [key],
          input: value,
          message: `${JSON.stringify(value)} is not an environment variable name: use capital letters, digits and underscores, not starting with a digit`,
        });
      }
    }
  }, { when: () => true });
}
