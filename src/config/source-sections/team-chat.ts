import { z } from 'zod';
import { CalendarDate, EnvVarName, HttpUrl, resourceList, StringList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['channels', 'messages', 'users'],
  available: ['channels', 'messages', 'users'],
} as const;

export const TeamChatSection = z.strictObject({
  access_token_env: EnvVarName.default('TEAM_CHAT_ACCESS_TOKEN'),
  /** Channel ids; absent means every channel. */
  selected_channels: StringList.optional(),
  start_date: CalendarDate.optional(),
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
});
export type TeamChatSection = z.output<typeof TeamChatSection>;

export const teamChatType = defineSourceType({
  key: 'team_chat', category: 'Communication', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: TeamChatSection,
  resources: RESOURCES,
});
