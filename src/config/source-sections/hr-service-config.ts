import { z } from 'zod';
import { CalendarDate, EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['employees', 'absences', 'attendances'],
  available: ['employees', 'absences', 'attendances', 'absence_types'],
} as const;

export const HrServiceConfig = genericConfig({
  client_id_env: EnvVarName.default('HR_SERVICE_CLIENT_ID'),
  client_secret_env: EnvVarName.default('HR_SERVICE_CLIENT_SECRET'),
  resources: resourceList(RESOURCES),
  /** The attendance and absence endpoints require a date range; it starts here (default 2000-01-01) and ends a year ahead. */
  start_date: CalendarDate.optional(),
});
export type HrServiceConfig = z.output<typeof HrServiceConfig>;

export const hrServiceType = defineSourceType({
  key: 'hr_service', category: 'Other', authType: 'API Key', wizard: false, wizardDisabledReason: 'its API is enterprise-only', incremental: true,
  section: 'generic', schema: HrServiceConfig,
  resources: RESOURCES,
});
