import type { FastifyRequest } from 'fastify';
import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface SlackWorkspace {
  channels: Record<string, unknown>[];
  /** Channel id → its messages, each with a `ts` such as `1767225600.000100`. */
  history: Record<string, { ts: string; [field: string]: unknown }[]>;
  members: Record<string, unknown>[];
}

/** The bot token the fake accepts; a test may change it to revoke the one a source holds. */
export interface SlackAccount {
  token: string;
}

/**
 * Slack's Web API: bot tokens as bearer, HTTP 200 with `ok: false` and an error code for what went
 * wrong, opaque `cursor`/`response_metadata.next_cursor` pages, and `oldest`/`latest` on history.
 */
export async function startSlackFake(workspace: SlackWorkspace, account: SlackAccount): Promise<FakeApi> {
  return startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      const token = bearerOf(request);
      if (token === account.token) return undefined;
      return reply.code(200).send({ ok: false, error: token === undefined ? 'not_authed' : 'invalid_auth' });
    });

    app.get('/api/conversations.list', (request) => {
      const query = request.query as Record<string, string | undefined>;
      const types = (query.types ?? 'public_channel').split(',');
      const listed = workspace.channels
        .filter((channel) => types.includes(channel.is_private === true ? 'private_channel' : 'public_channel'))
        .filter((channel) => query.exclude_archived !== 'true' || channel.is_archived !== true);
      return { ok: true, ...page(request, listed, 'channels', 100) };
    });

    app.get('/api/conversations.history', (request) => {
      const query = request.query as Record<string, string | undefined>;
      const messages = workspace.history[query.channel ?? ''];
      if (messages === undefined) return { ok: false, error: 'channel_not_found' };
      const inclusive = query.inclusive === 'true' || query.inclusive === '1';
      const oldest = Number(query.oldest ?? 0);
      const latest = query.latest === undefined ? Number.POSITIVE_INFINITY : Number(query.latest);
      const matching = messages
        .filter((message) => (inclusive ? Number(message.ts) >= oldest : Number(message.ts) > oldest))
        .filter((message) => (inclusive ? Number(message.ts) <= latest : Number(message.ts) < latest))
        .sort((a, b) => Number(b.ts) - Number(a.ts));
      const answer = page(request, matching, 'messages', 100);
      return { ok: true, ...answer, has_more: answer.response_metadata.next_cursor !== '', pin_count: 0 };
    });

    app.get('/api/users.list', (request) => ({ ok: true, ...page(request, workspace.members, 'members', 0), cache_ts: 1_767_225_600 }));
  });
}

/** One page of a list; Slack's cursors are opaque base64 text, empty on the last page. */
function page<Key extends string>(
  request: FastifyRequest, items: readonly unknown[], key: Key, defaultLimit: number,
): Record<Key, unknown[]> & { response_metadata: { next_cursor: string } } {
  const query = request.query as Record<string, string | undefined>;
  const limit = Math.min(Number(query.limit ?? defaultLimit) || items.length, 1000);
  const offset = query.cursor === undefined || query.cursor === '' ? 0 : Number(Buffer.from(query.cursor, 'base64').toString('utf8').replace(/^offset:/, ''));
  const next = offset + limit < items.length ? Buffer.from(`offset:${String(offset + limit)}`).toString('base64') : '';
  return { [key]: items.slice(offset, offset + limit), response_metadata: { next_cursor: next } } as Record<Key, unknown[]> & { response_metadata: { next_cursor: string } };
}

/** One channel of 450 messages, its history read 200 a page. */
export const slackContract: ContractVendor = {
  type: 'team_chat',
  async start() {
    const start = Date.UTC(2026, 0, 1) / 1000;
    const account: SlackAccount = { token: 'xoxb-contract-token' };
    const api = await startSlackFake({
      channels: [{ id: 'C001', name: 'general', is_channel: true, is_private: false, is_archived: false, is_member: true, created: start - 86_400 }],
      history: { C001: Array.from({ length: 450 }, (_, index) => ({ type: 'message', user: 'U001', text: `message ${String(index + 1)}`, ts: `${String(start + (index + 1) * 60)}.000100` })) },
      members: [],
    }, account);
    return {
      api, env: { TEAM_CHAT_ACCESS_TOKEN: account.token }, pagedPath: '/api/conversations.history', table: 'messages', key: 'ts',
      section: ['team_chat:', `  base_url: ${api.url}/api`, '  start_date: 2026-01-01', '  resources: [messages]'],
      revoke() {
        account.token = 'xoxb-rotated';
        return () => { account.token = 'xoxb-contract-token'; };
      },
      refusal: () => "Slack's conversations.list answered ok: false, error invalid_auth: the token is wrong",
    };
  },
};
