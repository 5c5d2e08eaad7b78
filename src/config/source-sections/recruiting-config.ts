import { z } from 'zod';
import { boundsInOrder, CalendarDate, EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices'],
  available: ['candidates', 'applications', 'jobs', 'offers', 'users', 'departments', 'offices', 'job_posts', 'scorecards'],
} as const;

export const RecruitingConfig = genericConfig({
  api_key_env: EnvVarName.default('RECRUITING_API_KEY'),
  resources: resourceList(RESOURCES),
  /** Records created before this day are left out. */
  start_date: CalendarDate.optional(),
  /** Records created after this day are left out. */
  end_date: CalendarDate.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type RecruitingConfig = z.output<typeof RecruitingConfig>;

export const recruitingType = defineSourceType({
  key: 'recruiting', category: 'Business & CRM', authType: 'API Key', wizard: true, incremental: true,
  section: 'generic', schema: RecruitingConfig,
  resources: RESOURCES,
});
