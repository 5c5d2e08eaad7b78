import { z } from 'zod';
import type { DateWindow } from '../date-window.ts';
import { bearerAuth, cursorParam, dateRangeOf, endOfDay, requireEnv, restSessionConnector, unixSecondsOf, type QueryValue, type RestResource } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { CalendarDate, EnvVarName, HttpUrl, resourceList, StringList, defineSourceType } from '../type-definition/index.ts';

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

const PAGE_SIZE = 200;
const nextCursor = cursorParam('response_metadata.next_cursor', 'cursor');

/** What to do about the errors a sync meets most, which Slack answers with HTTP 200 and `ok: false`. */
const ERROR_HINTS: Readonly<Record<string, string>> = {
  not_authed: 'no token was sent',
  invalid_auth: 'the token is wrong',
  token_revoked: 'the token was revoked',
  account_inactive: 'the token belongs to a deactivated app or user',
  missing_scope: 'the app lacks a scope it needs',
  not_in_channel: 'invite the app to the channel first',
  channel_not_found: 'check selected_channels',
};

/** The records under `key` of a Web API answer; an answer with `ok: false` fails the sync with Slack's error code. */
function okRecords(method: string, key: string) {
  return (body: unknown): unknown => {
    const answer = body as { ok?: unknown; error?: unknown; needed?: unknown } & Record<string, unknown>;
    if (answer.ok !== true) {
      const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
      const needed = typeof answer.needed === 'string' ? ` (${answer.needed})` : '';
      const hint = ERROR_HINTS[error];
      throw new SyncFailedError(`Slack's ${method} answered ok: false, error ${error}${needed}${hint === undefined ? '' : `: ${hint}`}`);
    }
    return answer[key] ?? [];
  };
}

const channelsResource: RestResource = {
  name: 'channels',
  path: '/conversations.list',
  params: { types: 'public_channel,private_channel', exclude_archived: false, limit: PAGE_SIZE },
  dataSelector: okRecords('conversations.list', 'channels'),
  paginator: nextCursor,
};

const usersResource: RestResource = {
  name: 'users',
  path: '/users.list',
  params: { limit: PAGE_SIZE },
  dataSelector: okRecords('users.list', 'members'),
  paginator: nextCursor,
};

function messagesResource(channel: string, section: TeamChatSection, window: DateWindow | undefined): RestResource {
  const { startDate, endDate } = dateRangeOf(section, window);
  const params: Record<string, QueryValue> = { channel, limit: PAGE_SIZE, inclusive: true };
  if (endDate !== undefined) params.latest = `${String(Math.floor(endOfDay(endDate).getTime() / 1000))}.999999`;
  return {
    name: 'messages',
    path: '/conversations.history',
    params,
    dataSelector: okRecords('conversations.history', 'messages'),
    paginator: nextCursor,
    mapRecord: (message) => ({ channel, ...message }),
    primaryKey: ['channel', 'ts'],
    // `inclusive`: a re-sync reads the newest message loaded again (an edit of it is seen) and the merge drops the repeat.
    // Slack's ts texts have a fixed width, so they compare in time order.
    incremental: {
      cursorPath: 'ts', param: 'oldest',
      initialValue: startDate === undefined ? undefined : `${String(unixSecondsOf(startDate))}.000000`,
    },
  };
}

/** The channels to read: those selected, else every channel the app is a member of (history needs membership). */
function channelsToRead(section: TeamChatSection, channels: readonly Record<string, unknown>[]): string[] {
  if (section.selected_channels !== undefined) return [...section.selected_channels];
  return channels.filter((channel) => channel.is_member === true && typeof channel.id === 'string').map((channel) => String(channel.id));
}

/** `team_chat`: a Slack workspace through the Web API with a bot token: channels, their history, and users. */
const teamChatConnector = restSessionConnector<TeamChatSection>({
  baseUrl: () => 'https://slack.com/api',
  auth: (section, env) => bearerAuth(requireEnv(env, section.access_token_env, 'a Slack bot token (xoxb-...)')),
  async extract(session, section, context) {
    // A backfill re-loads messages by day; channels and users are lists without dates.
    const wanted = new Set(context.window === undefined ? section.resources : section.resources.filter((resource) => resource === 'messages'));
    const listsChannels = wanted.has('channels') || (wanted.has('messages') && section.selected_channels === undefined);
    const channels = listsChannels ? await session.collect(channelsResource, { stage: wanted.has('channels') }) : [];
    if (wanted.has('messages')) {
      for (const channel of channelsToRead(section, channels)) await session.extract(messagesResource(channel, section, context.window), { cursorScope: channel });
    }
    if (wanted.has('users')) await session.extract(usersResource);
  },
});

export const teamChatType = defineSourceType({
  key: 'team_chat', category: 'Communication', authType: 'API Key', wizard: true, incremental: true,
  section: 'own', schema: TeamChatSection,
  resources: RESOURCES,
  connector: teamChatConnector,
});
