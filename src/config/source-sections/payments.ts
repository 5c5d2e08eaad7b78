import { z } from 'zod';
import { boundsInOrder, CalendarDate, EnvVarName, HttpUrl, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: [
    'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
  ],
  available: [
    'customers', 'charges', 'invoices', 'subscriptions', 'products', 'prices', 'payment_intents', 'balance_transactions', 'events',
  ],
} as const;

export const PaymentsSection = z.strictObject({
  payments_secret_key_env: EnvVarName.default('PAYMENTS_API_KEY'),
  /** Absent means every endpoint. */
  endpoints: resourceList(RESOURCES),
  start_date: CalendarDate.optional(),
  end_date: CalendarDate.optional(),
  base_url: HttpUrl.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type PaymentsSection = z.output<typeof PaymentsSection>;

export const paymentsType = defineSourceType({
  key: 'payments', category: 'E-commerce & Payment', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: PaymentsSection,
  resources: RESOURCES,
});
