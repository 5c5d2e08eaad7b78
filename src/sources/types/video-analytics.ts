import { z } from 'zod';
import { cursorParam, dateRangeOf, endOfDay, queryAuth, recordsWithin, requireEnv, restSessionConnector, singlePage, startOfDay, valueAt, type RestResource } from '../rest/index.ts';
import { boundsInOrder, CalendarDate, EnvVarName, resourceList, genericConfig, defineSourceType } from '../type-definition/index.ts';

const RESOURCES = {
  default: ['channels', 'playlist_items', 'videos'],
  available: ['channels', 'playlist_items', 'videos'],
} as const;

const ChannelId = z.string().regex(/^UC[A-Za-z0-9_-]{22}$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a channel id: UC followed by 22 letters, digits, _ or -`,
});

export const VideoAnalyticsConfig = genericConfig({
  api_key_env: EnvVarName.default('VIDEO_ANALYTICS_API_KEY'),
  channel_ids: z.array(ChannelId).min(1),
  resources: resourceList(RESOURCES),
  /** Videos published before this day are left out. */
  start_date: CalendarDate.optional(),
  /** Videos published after this day are left out. */
  end_date: CalendarDate.optional(),
}).refine(...boundsInOrder('start_date', 'end_date'));
export type VideoAnalyticsConfig = z.output<typeof VideoAnalyticsConfig>;

/** The most ids one request takes, and the largest page. */
const BATCH_SIZE = 50;

/** A list answer without results has no `items` at all. */
const items = (body: unknown): unknown => valueAt(body, 'items') ?? [];

function batches(ids: readonly string[]): string[][] {
  return Array.from({ length: Math.ceil(ids.length / BATCH_SIZE) }, (_, index) => ids.slice(index * BATCH_SIZE, (index + 1) * BATCH_SIZE));
}

function byIds(name: string, path: string, ids: readonly string[], windowColumn?: string): RestResource {
  return {
    name, path, params: { part: 'snippet,contentDetails,statistics', id: ids.join(','), maxResults: BATCH_SIZE }, dataSelector: items, paginator: singlePage,
    ...(windowColumn === undefined ? {} : { windowColumn }),
  };
}

/**
 * `video_analytics`: the YouTube Data API v3 with an API key: the channels, the videos of their
 * uploads playlists (published within start_date..end_date) and those videos with their statistics.
 */
const videoAnalyticsConnector = restSessionConnector<VideoAnalyticsConfig>({
  baseUrl: () => 'https://www.googleapis.com/youtube/v3',
  auth: (config, env) => queryAuth('key', requireEnv(env, config.api_key_env, 'a YouTube Data API key')),
  async extract(session, config, context) {
    // A backfill re-loads the videos published in its window; channels are not dated.
    const wanted = new Set<string>(context.window === undefined ? config.resources : config.resources.filter((name) => name !== 'channels'));
    const channels: Record<string, unknown>[] = [];
    for (const ids of batches(config.channel_ids)) channels.push(...await session.collect(byIds('channels', 'channels', ids), { stage: wanted.has('channels') }));
    if (!wanted.has('playlist_items') && !wanted.has('videos')) return;

    // The API filters playlist items by no date: the range is applied to what it returns.
    const { startDate, endDate } = dateRangeOf(config, context.window);
    const range = {
      from: startDate === undefined ? undefined : startOfDay(startDate),
      to: endDate === undefined ? undefined : endOfDay(endDate),
    };
    const videoIds: string[] = [];
    for (const channel of channels) {
      const uploads = valueAt(channel, 'contentDetails.relatedPlaylists.uploads');
      if (typeof uploads !== 'string') continue;
      const uploaded = await session.collect({
        name: 'playlist_items',
        path: 'playlistItems',
        params: { part: 'snippet,contentDetails', playlistId: uploads, maxResults: BATCH_SIZE },
        dataSelector: (body) => recordsWithin(items(body), 'contentDetails.videoPublishedAt', range),
        paginator: cursorParam('nextPageToken', 'pageToken'),
        windowColumn: 'contentDetails.videoPublishedAt',
      }, { stage: wanted.has('playlist_items') });
      for (const item of uploaded) {
        const id = valueAt(item, 'contentDetails.videoId');
        if (typeof id === 'string') videoIds.push(id);
      }
    }
    if (!wanted.has('videos')) return;
    for (const ids of batches(videoIds)) await session.extract(byIds('videos', 'videos', ids, 'snippet.publishedAt'));
  },
});

export const videoAnalyticsType = defineSourceType({
  key: 'video_analytics', category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: VideoAnalyticsConfig,
  resources: RESOURCES,
  connector: videoAnalyticsConnector,
});
