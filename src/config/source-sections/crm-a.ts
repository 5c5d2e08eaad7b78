import { z } from 'zod';
import { EnvVarName, HttpUrl, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['contacts', 'companies', 'deals', 'tickets'],
  available: [
    'contacts', 'companies', 'deals', 'tickets', 'products', 'quotes', 'owners', 'properties',
    'pipelines_deal', 'pipelines_ticket',
  ],
} as const;

export const CrmASection = z.strictObject({
  api_key_env: EnvVarName.default('CRM_A_API_KEY'),
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
});
export type CrmASection = z.output<typeof CrmASection>;

export const crmAType = defineSourceType({
  key: 'crm_a', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: CrmASection,
  resources: RESOURCES,
});
