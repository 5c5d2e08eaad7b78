import { z } from 'zod';
import { EnvVarName, HttpUrl, NonEmptyString, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
  available: ['issues', 'pull_requests', 'commits', 'releases', 'stargazers'],
} as const;

export const CodeHostSection = z.strictObject({
  access_token_env: EnvVarName.default('CODE_HOST_ACCESS_TOKEN'),
  owner: NonEmptyString,
  /** The repository's name. */
  name: NonEmptyString,
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
});
export type CodeHostSection = z.output<typeof CodeHostSection>;

export const codeHostType = defineSourceType({
  key: 'code_host', category: 'Development', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: CodeHostSection,
  resources: RESOURCES,
});
