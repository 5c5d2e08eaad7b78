import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { chessGame, monthFromNow, startFakeChessCom, type FakeChessCom } from '../fakes/chess-com.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const MONTHS = [monthFromNow(-3), monthFromNow(-2), monthFromNow(-1), monthFromNow(0)];

let chess: FakeChessCom;
let quarry: TestQuarry;

beforeAll(async () => {
  chess = await startFakeChessCom({
    magnuscarlsen: { months: MONTHS, gamesPerMonth: 30, opponent: 'hikaru' },
    hikaru: { months: MONTHS, gamesPerMonth: 30, opponent: 'magnuscarlsen' },
  });
  quarry = await startQuarry({
    sourcesYaml: `sources:
  - name: chess
    type: chess_games
    chess_games: {players: [MagnusCarlsen, hikaru], resources: [players, player_stats, games], base_url: "${chess.baseUrl}"}
  - name: chess_window
    type: chess_games
    chess_games: {players: [magnuscarlsen], start_month: "${MONTHS[1]!}", end_month: "${MONTHS[2]!}", base_url: "${chess.baseUrl}"}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await chess.close();
});

function gameRequests(from = 0): string[] {
  return chess.api.requests.slice(from).map((request) => request.path).filter((path) => /\/games\/\d{4}\/\d{2}$/.test(path));
}

describe('chess_games (Chess.com published data)', () => {
  it('loads profiles, stats and every archived game once, a game between two listed players included', async () => {
    expect(await syncAndWait(quarry, 'chess')).toMatchObject({ type: 'sync_completed', rows: 2 + 2 + 120 });
    const counts = await quarry.query(`SELECT (SELECT count(*) FROM raw_chess.players) AS players, (SELECT count(*) FROM raw_chess.player_stats) AS stats,
      (SELECT count(*) FROM raw_chess.games) AS games, (SELECT count(DISTINCT uuid) FROM raw_chess.games) AS uuids`);
    expect(counts).toEqual([{ players: 2, stats: 2, games: 120, uuids: 120 }]);
    expect(await quarry.query("SELECT streaming_platforms[1].channel_url AS channel FROM raw_chess.players WHERE username = 'hikaru'"))
      .toEqual([{ channel: 'https://twitch.tv/gmhikaru' }]);
    expect(await quarry.query("SELECT chess_blitz.record.win AS wins FROM raw_chess.player_stats WHERE username = 'magnuscarlsen'")).toEqual([{ wins: 1000 }]);
    const game = chessGame('hikaru', 'magnuscarlsen', MONTHS[0]!, 2);
    expect(await quarry.query(`SELECT white.username AS white, black.result AS result, accuracies.white AS accuracy FROM raw_chess.games WHERE uuid = '${game.uuid}'`))
      .toEqual([{ white: 'hikaru', result: 'checkmated', accuracy: game.accuracies!.white }]);
    // Usernames are asked for in lower case, as the API's URLs write them.
    expect(gameRequests().filter((path) => path.includes('/magnuscarlsen/'))).toEqual(MONTHS.map((month) => `/pub/player/magnuscarlsen/games/${month}`));
  });

  it('asks again only for the month that was current, and merges its new games', async () => {
    const before = chess.api.requests.length;
    chess.archives.get('hikaru')!.get(MONTHS[3]!)!.push(chessGame('hikaru', 'firouzja2003', MONTHS[3]!, 31));
    expect(await syncAndWait(quarry, 'chess')).toMatchObject({ type: 'sync_completed' });
    expect(gameRequests(before)).toEqual([`/pub/player/magnuscarlsen/games/${MONTHS[3]!}`, `/pub/player/hikaru/games/${MONTHS[3]!}`]);
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT uuid) AS ids FROM raw_chess.games')).toEqual([{ n: 121, ids: 121 }]);
  });

  it('keeps to the months between start_month and end_month', async () => {
    const before = chess.api.requests.length;
    expect(await syncAndWait(quarry, 'chess_window')).toMatchObject({ type: 'sync_completed', rows: 1 + 60 });
    expect(gameRequests(before)).toEqual([`/pub/player/magnuscarlsen/games/${MONTHS[1]!}`, `/pub/player/magnuscarlsen/games/${MONTHS[2]!}`]);
  });

  it('fails with one line naming the 404 when a player closed their account, and keeps the games', async () => {
    const games = chess.archives.get('hikaru')!;
    chess.archives.delete('hikaru');
    try {
      const end = await syncAndWait(quarry, 'chess');
      const line = `GET ${chess.baseUrl}/player/hikaru answered 404 Not Found: User "hikaru" not found.`;
      expect(end).toMatchObject({ type: 'sync_failed', error: line });
      expect(await logMessages(quarry, 'chess', 'ERROR')).toEqual([line]);
    } finally {
      chess.archives.set('hikaru', games);
    }
    expect(await quarry.query('SELECT count(*) AS n FROM raw_chess.games')).toEqual([{ n: 121 }]);
  });

  it('refuses resources the archive does not publish, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: chess\n    type: chess_games\n    chess_games: {players: [hikaru], resources: [games, clubs]}\n');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].chess_games.resources[1]: expected one of players, games, player_stats, got "clubs"',
    ]);
  });
});
