import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface ChessGame {
  url: string;
  pgn: string;
  time_control: string;
  end_time: number;
  rated: boolean;
  uuid: string;
  fen: string;
  time_class: string;
  rules: string;
  white: { rating: number; result: string; '@id': string; username: string; uuid: string };
  black: { rating: number; result: string; '@id': string; username: string; uuid: string };
  accuracies?: { white: number; black: number };
  eco: string;
}

export interface FakeChessCom {
  readonly api: FakeApi;
  readonly baseUrl: string;
  /** Player → month (`YYYY/MM`) → games. */
  readonly archives: Map<string, Map<string, ChessGame[]>>;
  close(): Promise<void>;
}

const ROOT = 'https://api.chess.com/pub';

/** The month `offset` months from now's, as `YYYY/MM`. */
export function monthFromNow(offset: number, now = new Date()): string {
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  return `${String(at.getUTCFullYear())}/${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

const side = (username: string, rating: number, result: string) => ({
  rating, result, '@id': `${ROOT}/player/${username}`, username, uuid: `uuid-${username}`,
});

export function chessGame(player: string, opponent: string, month: string, n: number): ChessGame {
  const [year, monthNumber] = month.split('/').map(Number) as [number, number];
  const endTime = Math.floor(Date.UTC(year, monthNumber - 1, 1 + (n % 27), 12, n) / 1000);
  // Sides follow the names, not whose archive it is: a game between two players reads the same in both archives.
  const [first, second] = [player, opponent].sort() as [string, string];
  const white = n % 2 === 0 ? first : second;
  const black = n % 2 === 0 ? second : first;
  return {
    url: `https://www.chess.com/game/live/${String(endTime)}${String(n)}`,
    pgn: `[Event "Live Chess"]\n[White "${white}"]\n[Black "${black}"]\n\n1. e4 e5 2. Nf3 1-0`,
    time_control: n % 3 === 0 ? '600' : '180+2', end_time: endTime, rated: n % 5 !== 0,
    uuid: `${first}-${second}-${month.replace('/', '')}-${String(n)}`,
    fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2',
    time_class: n % 3 === 0 ? 'rapid' : 'blitz', rules: 'chess',
    white: side(white, 2800 + (n % 50), n % 4 === 0 ? 'resigned' : 'win'),
    black: side(black, 2750 + (n % 40), n % 4 === 0 ? 'win' : 'checkmated'),
    ...(n % 2 === 0 ? { accuracies: { white: 90 + (n % 9), black: 80 + (n % 7) } } : {}),
    eco: 'https://www.chess.com/openings/Kings-Pawn-Opening-Kings-Knight-Variation',
  };
}

/**
 * Chess.com's Published-Data API on loopback (`/pub/…`, no credentials): player profiles and stats,
 * the list of monthly archive URLs, and each month's games; 404 with `{code, message}` for an
 * unknown player or month.
 */
export async function startFakeChessCom(players: Readonly<Record<string, { months: string[]; gamesPerMonth: number; opponent: string }>>): Promise<FakeChessCom> {
  const archives = new Map<string, Map<string, ChessGame[]>>();
  for (const [player, plan] of Object.entries(players)) {
    archives.set(player, new Map(plan.months.map((month) => [month, records(plan.gamesPerMonth, (n) => chessGame(player, plan.opponent, month, n))])));
  }
  const notFound = (player: string) => ({ code: 0, message: `User "${player}" not found.` });

  const api = await startFakeApi((app) => {
    app.get('/pub/player/:player', (request, reply) => {
      const { player } = request.params as { player: string };
      if (!archives.has(player)) return reply.code(404).send(notFound(player));
      return {
        avatar: `https://images.chesscomfiles.com/${player}.png`, player_id: 3_889_224 + player.length, '@id': `${ROOT}/player/${player}`,
        url: `https://www.chess.com/member/${player}`, name: player === 'magnuscarlsen' ? 'Magnus Carlsen' : 'Hikaru Nakamura', username: player,
        title: 'GM', followers: 1_000_000 + player.length, country: `${ROOT}/country/${player === 'magnuscarlsen' ? 'NO' : 'US'}`,
        last_online: 1_700_000_000, joined: 1_275_000_000, status: 'premium', is_streamer: player === 'hikaru', verified: true, league: 'Legend',
        streaming_platforms: player === 'hikaru' ? [{ type: 'twitch', channel_url: 'https://twitch.tv/gmhikaru' }] : [],
      };
    });
    app.get('/pub/player/:player/stats', (request, reply) => {
      const { player } = request.params as { player: string };
      if (!archives.has(player)) return reply.code(404).send(notFound(player));
      return {
        chess_blitz: { last: { rating: 3200, date: 1_700_000_000, rd: 30 }, best: { rating: 3300, date: 1_600_000_000, game: 'https://www.chess.com/game/live/1' }, record: { win: 1000, loss: 200, draw: 300 } },
        tactics: { highest: { rating: 3500, date: 1_650_000_000 }, lowest: { rating: 1500, date: 1_300_000_000 } },
      };
    });
    app.get('/pub/player/:player/games/archives', (request, reply) => {
      const { player } = request.params as { player: string };
      const months = archives.get(player);
      if (months === undefined) return reply.code(404).send(notFound(player));
      return { archives: [...months.keys()].sort().map((month) => `${ROOT}/player/${player}/games/${month}`) };
    });
    app.get('/pub/player/:player/games/:year/:month', (request, reply) => {
      const { player, year, month } = request.params as { player: string; year: string; month: string };
      const games = archives.get(player)?.get(`${year}/${month}`);
      if (games === undefined) return reply.code(404).send({ code: 0, message: 'Date cannot be set in the future' });
      return { games };
    });
  });

  return { api, baseUrl: `${api.url}/pub`, archives, close: () => api.close() };
}

/** A player's four monthly archives of 30 games, read a month a request; published to anyone, so nothing to refuse. */
export const chessComContract: ContractVendor = {
  type: 'chess_games',
  anonymous: true,
  async start() {
    const months = [monthFromNow(-3), monthFromNow(-2), monthFromNow(-1), monthFromNow(0)];
    const fake = await startFakeChessCom({ hikaru: { months, gamesPerMonth: 30, opponent: 'magnuscarlsen' } });
    return {
      api: fake.api, env: {}, pagedPath: '/pub/player/hikaru/games/2', table: 'games', key: 'uuid',
      section: ['chess_games:', '  players: [hikaru]', '  resources: [games]', `  base_url: "${fake.baseUrl}"`],
    };
  },
};
