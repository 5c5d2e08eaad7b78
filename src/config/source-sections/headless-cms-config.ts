import { z } from 'zod';
import { EnvVarName, HttpUrl, StringList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

export const HeadlessCmsConfig = genericConfig({
  /** Strapi is self-hosted: the server's root, such as https://cms.example.com (without /api). */
  base_url: HttpUrl,
  api_token_env: EnvVarName.default('HEADLESS_CMS_API_TOKEN'),
  /** Collection types by their plural API id (`articles`, `blog-posts`). */
  collections: StringList,
});
export type HeadlessCmsConfig = z.output<typeof HeadlessCmsConfig>;

export const headlessCmsType = defineSourceType({
  key: 'headless_cms', category: 'Other', authType: 'API Key', wizard: false, wizardDisabledReason: 'untested', incremental: false,
  section: 'generic', schema: HeadlessCmsConfig,
});
