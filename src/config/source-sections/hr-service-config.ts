import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { CalendarDate, EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const HrServiceConfig = genericConfig({
  client_id_env: EnvVarName.default('HR_SERVICE_CLIENT_ID'),
  client_secret_env: EnvVarName.default('HR_SERVICE_CLIENT_SECRET'),
  resources: resourceList(SOURCE_RESOURCES.hr_service),
  /** The attendance and absence endpoints require a date range; it starts here (default 2000-01-01) and ends a year ahead. */
  start_date: CalendarDate.optional(),
});
export type HrServiceConfig = z.output<typeof HrServiceConfig>;
