import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, HttpUrl, NonEmptyString, resourceList } from './field-types.ts';

export const CodeHostSection = z.strictObject({
  access_token_env: EnvVarName.default('CODE_HOST_ACCESS_TOKEN'),
  owner: NonEmptyString,
  /** The repository's name. */
  name: NonEmptyString,
  resources: resourceList(SOURCE_RESOURCES.code_host),
  base_url: HttpUrl.optional(),
});
export type CodeHostSection = z.output<typeof CodeHostSection>;
