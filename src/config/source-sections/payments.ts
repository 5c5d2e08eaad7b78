import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { boundsInOrder, CalendarDate, EnvVarName, HttpUrl, resourceList } from './field-types.ts';

export const PaymentsSection = z.strictObject({
  payments_secret_key_env: EnvVarName.default('PAYMENTS_API_KEY'),
  /** Absent means every endpoint. */
  endpoints: resourceList(SOURCE_RESOURCES.payments),
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
  base_url: HttpUrl.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type PaymentsSection = z.output<typeof PaymentsSection>;
