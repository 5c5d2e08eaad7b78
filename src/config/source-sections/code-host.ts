import { z } from 'zod';
import { EnvVarName, HttpUrl, NonEmptyString } from './field-types.ts';

export const CodeHostSection = z.strictObject({
  access_token_env: EnvVarName.default('CODE_HOST_ACCESS_TOKEN'),
  owner: NonEmptyString,
  /** The repository's name. */
  name: NonEmptyString,
  base_url: HttpUrl.optional(),
});
export type CodeHostSection = z.output<typeof CodeHostSection>;
