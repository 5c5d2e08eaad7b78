import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { CalendarDate, EnvVarName, HttpUrl, resourceList, StringList } from './field-types.ts';

export const TeamChatSection = z.strictObject({
  access_token_env: EnvVarName.default('TEAM_CHAT_ACCESS_TOKEN'),
  /** Channel ids; absent means every channel. */
  selected_channels: StringList.optional(),
  start_date: CalendarDate.optional(),
  resources: resourceList(SOURCE_RESOURCES.team_chat),
  base_url: HttpUrl.optional(),
});
export type TeamChatSection = z.output<typeof TeamChatSection>;
