import { z } from 'zod';
import { CalendarDate, EnvVarName, HttpUrl, StringList } from './field-types.ts';

export const TeamChatSection = z.strictObject({
  access_token_env: EnvVarName.default('TEAM_CHAT_ACCESS_TOKEN'),
  /** Channel ids; absent means every channel. */
  selected_channels: StringList.optional(),
  start_date: CalendarDate.optional(),
  base_url: HttpUrl.optional(),
});
export type TeamChatSection = z.output<typeof TeamChatSection>;
