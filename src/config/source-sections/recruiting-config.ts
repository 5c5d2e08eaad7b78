import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { boundsInOrder, CalendarDate, EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const RecruitingConfig = genericConfig({
  api_key_env: EnvVarName.default('RECRUITING_API_KEY'),
  resources: resourceList(SOURCE_RESOURCES.recruiting),
  /** Records created before this day are left out. */
  start_date: CalendarDate.optional(),
  /** Records created after this day are left out. */
  end_date: CalendarDate.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type RecruitingConfig = z.output<typeof RecruitingConfig>;
