import { z } from 'zod';
import { CalendarDate, EnvVarName, NonEmptyString } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const HostName = z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9-.]*[A-Za-z0-9])?$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a host name`,
});

export const InboxConfig = genericConfig({
  host: HostName.optional(),
  /** 993 with TLS, 143 without. */
  port: z.int().min(1).max(65_535).optional(),
  /** Implicit TLS from the first byte (IMAPS); false for a plain connection (which STARTTLS upgrades when offered). */
  tls: z.boolean().default(true),
  folder: NonEmptyString.default('INBOX'),
  username_env: EnvVarName.default('INBOX_USERNAME'),
  password_env: EnvVarName.default('INBOX_PASSWORD'),
  /** Messages received on or after this day. */
  start_date: CalendarDate.optional(),
}).refine((config) => config.host !== undefined, { path: ['host'], error: 'required: the IMAP server host name' });
export type InboxConfig = z.output<typeof InboxConfig>;

export const inboxType = defineSourceType({
  key: 'inbox', category: 'Files & Storage', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: InboxConfig,
});
