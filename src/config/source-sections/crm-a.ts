import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';

export const CrmASection = z.strictObject({
  api_key_env: EnvVarName.default('CRM_A_API_KEY'),
  resources: resourceList(SOURCE_RESOURCES.crm_a),
  base_url: HttpUrl.optional(),
});
export type CrmASection = z.output<typeof CrmASection>;
