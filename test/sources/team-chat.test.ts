import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackFake, type SlackAccount, type SlackWorkspace } from '../fakes/slack.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'xoxb-1111-2222-fakebottoken';
const START = Date.UTC(2026, 0, 1) / 1000;

/** A Slack ts `minutes` after the configured start date (negative: before it). */
const ts = (minutes: number): string => `${String(START + minutes * 60)}.000100`;

function message(n: number, minutes = n): { ts: string; [field: string]: unknown } {
  return {
    type: 'message', user: `U${String(n % 3).padStart(3, '0')}`, text: `message ${String(n)}`, ts: ts(minutes),
    ...(n % 10 === 0 ? { reactions: [{ name: 'tada', users: ['U001', 'U002'], count: 2 }] } : {}),
    blocks: [{ type: 'rich_text', block_id: `b${String(n)}`, elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: `message ${String(n)}` }] }] }],
  };
}

function channel(id: string, name: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id, name, is_channel: true, is_private: false, is_archived: false, is_member: true, created: START - 86_400, creator: 'U000',
    topic: { value: `${name} topic`, creator: 'U000', last_set: 0 }, purpose: { value: '', creator: '', last_set: 0 }, num_members: 3, ...fields,
  };
}

function workspace(): SlackWorkspace {
  return {
    channels: [
      channel('C001', 'general', {}), channel('C002', 'random', {}), channel('C003', 'secret', { is_private: true }),
      channel('C004', 'old', { is_archived: true, is_member: false }),
    ],
    history: {
      C001: [...records(450, (n) => message(n)), message(9001, -10), message(9002, -5)],
      C002: records(30, (n) => message(n)),
      C003: records(5, (n) => message(n)),
      C004: records(2, (n) => message(n)),
    },
    members: records(250, (n) => ({
      id: `U${String(n).padStart(3, '0')}`, team_id: 'T001', name: `user${String(n)}`, deleted: false, real_name: `User ${String(n)}`, is_bot: n === 1,
      profile: { email: `user${String(n)}@example.com`, display_name: `u${String(n)}`, image_72: 'https://example.com/a.png' },
    })),
  };
}

const slack = workspace();
const account: SlackAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startSlackFake(slack, account);
  quarry = await startQuarry({
    env: { TEAM_CHAT_ACCESS_TOKEN: TOKEN },
    sourcesYaml: [
      'sources:',
      '  - name: slack', '    type: team_chat', '    team_chat:', `      base_url: ${api.url}/api`, '      start_date: 2026-01-01',
      '  - name: slack_random', '    type: team_chat', '    team_chat:', `      base_url: ${api.url}/api`,
      '      selected_channels: [C002]', '      resources: [messages]', '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

const historyOf = (channelId: string, from: number) => api.requests.slice(from)
  .filter((request) => request.path === '/api/conversations.history' && request.query.get('channel') === channelId);

describe('team_chat (Slack) sources', () => {
  it('loads channels, the history of each channel the app is in since start_date, and users', async () => {
    expect(await syncAndWait(quarry, 'slack')).toMatchObject({ type: 'sync_completed', rows: 4 + 450 + 30 + 5 + 250 });
    const counts = await quarry.query(`SELECT (SELECT count(*) FROM raw_slack.channels) AS channels,
      (SELECT count(*) FROM raw_slack.users) AS users,
      (SELECT string_agg(channel || ':' || n, ' ' ORDER BY channel) FROM (SELECT channel, count(*) AS n FROM raw_slack.messages GROUP BY channel)) AS messages`);
    expect(counts[0]).toEqual({ channels: 4, users: 250, messages: 'C001:450 C002:30 C003:5' });
    expect(await quarry.query("SELECT text, \"user\", reactions[1].count AS tada, blocks[1].elements[1].elements[1].text AS block FROM raw_slack.messages WHERE channel = 'C001' AND ts = '" + ts(20) + "'"))
      .toEqual([{ text: 'message 20', user: 'U002', tada: 2, block: 'message 20' }]);
    expect(await quarry.query("SELECT name, topic.value AS topic, is_private FROM raw_slack.channels WHERE id = 'C003'")).toEqual([{ name: 'secret', topic: 'secret topic', is_private: true }]);
    expect(await quarry.query("SELECT profile.email AS email FROM raw_slack.users WHERE id = 'U042'")).toEqual([{ email: 'user42@example.com' }]);
    const general = historyOf('C001', 0);
    expect(general.map((request) => request.query.get('oldest'))).toEqual([`${String(START)}.000000`, `${String(START)}.000000`, `${String(START)}.000000`]);
    expect(general.map((request) => request.query.get('cursor') === null)).toEqual([true, false, false]);
    expect(historyOf('C004', 0)).toHaveLength(0);
    expect(general[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('reads only the selected channels, without listing channels it does not load', async () => {
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'slack_random')).toMatchObject({ type: 'sync_completed', rows: 30 });
    expect(api.requests.slice(before).map((request) => `${request.path} ${request.query.get('channel') ?? ''}`)).toEqual(['/api/conversations.history C002']);
  });

  it('asks each channel only for messages from the newest one loaded on, and merges the repeat and its edit', async () => {
    slack.history.C002!.push(message(31), message(32));
    slack.history.C001!.splice(449, 1, { ...message(450), text: 'message 450 (edited)', edited: { user: 'U000', ts: ts(451) } });
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'slack')).toMatchObject({ type: 'sync_completed' });
    expect(historyOf('C001', before).map((request) => request.query.get('oldest'))).toEqual([ts(450)]);
    expect(historyOf('C001', before).map((request) => request.query.get('inclusive'))).toEqual(['true']);
    expect(historyOf('C002', before).map((request) => request.query.get('oldest'))).toEqual([ts(30)]);
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT ts) AS stamps FROM raw_slack.messages WHERE channel = 'C002'")).toEqual([{ n: 32, stamps: 32 }]);
    expect(await quarry.query(`SELECT text, edited.ts AS edited FROM raw_slack.messages WHERE channel = 'C001' AND ts = '${ts(450)}'`))
      .toEqual([{ text: 'message 450 (edited)', edited: ts(451) }]);
    expect((await quarry.ctx.store.sourceState.forSource('slack')).get('messages/C002')).toBe(ts(32));
  });
});
