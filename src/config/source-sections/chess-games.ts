import { z } from 'zod';
import { boundsInOrder, HttpUrl, resourceList } from './field-types.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const chessGamesType = defineSourceType({
  key: 'chess_games', category: 'Other', authType: 'None', wizard: true, incremental: true,
  section: 'own', schema: ChessGamesSection,
  resources: RESOURCES,
});
