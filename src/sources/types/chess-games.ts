import { z } from 'zod';
import { noAuth, restSessionConnector, singlePage, valueAt, type RestResource } from '../rest/index.ts';
import { boundsInOrder, HttpUrl, resourceList, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['players', 'games'],
  available: ['players', 'games', 'player_stats'],
} as const;

const Username = z.string().regex(/^[A-Za-z0-9_-]+$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a username: use letters, digits, _ and -`,
});

/** The archive is published per month, so the range is given in months. */
const Month = z.string().regex(/^\d{4}\/(?:0[1-9]|1[0-2])$/, {
  error: (issue) => `expected a month YYYY/MM, got ${JSON.stringify(issue.input)}`,
});

/** The spec shows no fields for chess_games; these are the ones its public archive needs. */
export const ChessGamesSection = z.strictObject({
  players: z.array(Username).min(1),
  start_month: Month.optional(),
  end_month: Month.optional(),
  resources: resourceList(RESOURCES),
  base_url: HttpUrl.optional(),
}).refine(...boundsInOrder('start_month', 'end_month'));
export type ChessGamesSection = z.output<typeof ChessGamesSection>;

/** `YYYY/MM`, as the archive URLs end and as start_month/end_month are written. */
type Month = string;

function monthOf(date: Date): Month {
  return `${String(date.getUTCFullYear())}/${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month an archive URL (`…/games/2024/01`) holds, or undefined for a URL of another shape. */
function archiveMonth(url: unknown): Month | undefined {
  return typeof url === 'string' ? /\/games\/(\d{4}\/\d{2})$/.exec(url)?.[1] : undefined;
}

function singleRecord(name: string, path: string, mapRecord?: RestResource['mapRecord']): RestResource {
  return { name, path, dataSelector: '$', paginator: singlePage, mapRecord };
}

/**
 * `chess_games`: the Chess.com Published-Data API (no credentials): each player's profile and stats,
 * and the games of their monthly archives within start_month..end_month. Archives of months that were
 * over when loaded are not asked for again; the month that was current is, and its games merge on uuid.
 */
const chessGamesConnector = restSessionConnector<ChessGamesSection>({
  baseUrl: () => 'https://api.chess.com/pub',
  auth: () => noAuth,
  async extract(session, section, context) {
    const currentMonth = monthOf(context.now);
    // A game between two of the listed players is in both their archives: it is loaded once.
    const loadedGames = new Set<unknown>();
    const newGames = (body: unknown): unknown[] => {
      const games = valueAt(body, 'games');
      return (Array.isArray(games) ? games : []).filter((game) => {
        const uuid = valueAt(game, 'uuid');
        if (loadedGames.has(uuid)) return false;
        loadedGames.add(uuid);
        return true;
      });
    };
    for (const player of section.players.map((name) => name.toLowerCase())) {
      if (section.resources.includes('players')) await session.extract(singleRecord('players', `player/${player}`));
      if (section.resources.includes('player_stats')) {
        await session.extract(singleRecord('player_stats', `player/${player}/stats`, (stats) => ({ username: player, ...stats })));
      }
      if (!section.resources.includes('games')) continue;
      const cursor = `games/${player}`;
      const saved = context.state.get(cursor);
      const from = [section.start_month, typeof saved === 'string' ? saved : undefined].filter((month) => month !== undefined).sort().at(-1);
      const archives = await session.collect(
        { name: 'archives', path: `player/${player}/games/archives`, dataSelector: 'archives', paginator: singlePage },
        { stage: false },
      );
      const months = archives.map((archive) => archiveMonth(valueAt(archive, 'value')))
        .filter((month): month is Month => month !== undefined)
        .filter((month) => (from === undefined || month >= from) && (section.end_month === undefined || month <= section.end_month));
      for (const month of months) {
        await session.extract({ name: 'games', path: `player/${player}/games/${month}`, dataSelector: newGames, paginator: singlePage, primaryKey: ['uuid'] });
      }
      context.state.set(cursor, currentMonth);
    }
  },
});

export const chessGamesType = defineSourceType({
  key: 'chess_games', category: 'Other', authType: 'None', wizard: true, incremental: true,
  section: 'own', schema: ChessGamesSection,
  resources: RESOURCES,
  connector: chessGamesConnector,
});
