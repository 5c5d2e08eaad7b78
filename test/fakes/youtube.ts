import type { FastifyReply, FastifyRequest } from 'fastify';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface YouTubeVideo {
  id: string;
  channelId: string;
  title: string;
  publishedAt: string;
  tags: string[];
  duration: string;
  viewCount: number;
}

export interface FakeYouTube {
  readonly api: FakeApi;
  readonly baseUrl: string;
  apiKey: string;
  readonly channels: Map<string, { title: string; videos: YouTubeVideo[] }>;
  close(): Promise<void>;
}

const EPOCH = Date.UTC(2024, 0, 1);

/** A channel id's uploads playlist is the id with UU for UC. */
export const uploadsOf = (channelId: string): string => `UU${channelId.slice(2)}`;

export function youtubeVideo(channelId: string, n: number): YouTubeVideo {
  return {
    id: `${channelId.slice(2, 6)}vid${String(n).padStart(4, '0')}`, channelId, title: `Video ${String(n)}`,
    publishedAt: new Date(EPOCH + n * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    tags: n % 2 === 0 ? ['tutorial', 'duckdb'] : [], duration: `PT${String(3 + (n % 5))}M${String(n % 60)}S`, viewCount: 1000 * n,
  };
}

type Query = Record<string, string | undefined>;

const thumbnails = (id: string) => ({ default: { url: `https://i.ytimg.com/vi/${id}/default.jpg`, width: 120, height: 90 } });

/**
 * The YouTube Data API v3 on loopback: the API key as `key`, `part` choosing the parts returned,
 * `pageToken`/`nextPageToken` pages of at most 50, `items` absent from an empty answer, and Google's
 * error envelope (400 for a key that is not valid).
 */
export async function startFakeYouTube(options: { apiKey: string; channels: Readonly<Record<string, number>> }): Promise<FakeYouTube> {
  const state = { apiKey: options.apiKey };
  const channels = new Map(Object.entries(options.channels).map(([id, count]) => [id, { title: `Channel ${id.slice(2, 6)}`, videos: records(count, (n) => youtubeVideo(id, n)) }]));
  const badKey = (reply: FastifyReply) => reply.code(400).send({
    error: {
      code: 400, message: 'API key not valid. Please pass a valid API key.',
      errors: [{ message: 'API key not valid. Please pass a valid API key.', domain: 'global', reason: 'badRequest' }], status: 'INVALID_ARGUMENT',
    },
  });
  const listOf = (kind: string, parts: Record<string, unknown>[], page: { next?: string; total: number }) => ({
    kind: `youtube#${kind}ListResponse`, etag: `etag-${String(page.total)}`, ...(page.next === undefined ? {} : { nextPageToken: page.next }),
    pageInfo: { totalResults: page.total, resultsPerPage: 50 }, ...(parts.length === 0 ? {} : { items: parts }),
  });
  const picked = (query: Query, all: Record<string, unknown>): Record<string, unknown> => {
    const parts = (query.part ?? '').split(',');
    return Object.fromEntries(Object.entries(all).filter(([key]) => ['kind', 'etag', 'id'].includes(key) || parts.includes(key)));
  };
  const guard = (request: FastifyRequest, reply: FastifyReply): Query | undefined => {
    const query = request.query as Query;
    if (query.key !== state.apiKey) {
      void badKey(reply);
      return undefined;
    }
    if (query.part === undefined) {
      void reply.code(400).send({ error: { code: 400, message: "No filter selected. Expected one of: id, mine, ...", errors: [{ reason: 'missingRequiredParameter', domain: 'youtube.parameter' }] } });
      return undefined;
    }
    return query;
  };

  const api = await startFakeApi((app) => {
    app.get('/youtube/v3/channels', (request, reply) => {
      const query = guard(request, reply);
      if (query === undefined) return reply;
      const ids = (query.id ?? '').split(',').filter((id) => channels.has(id));
      return listOf('channel', ids.map((id) => {
        const channel = channels.get(id)!;
        return picked(query, {
          kind: 'youtube#channel', etag: `etag-${id}`, id,
          snippet: { title: channel.title, description: 'About', customUrl: `@${channel.title.replace(' ', '').toLowerCase()}`, publishedAt: '2015-05-01T10:00:00Z', thumbnails: thumbnails(id), country: 'DE' },
          contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsOf(id) } },
          statistics: { viewCount: String(channel.videos.reduce((sum, video) => sum + video.viewCount, 0)), subscriberCount: '12000', hiddenSubscriberCount: false, videoCount: String(channel.videos.length) },
        });
      }), { total: ids.length });
    });
    app.get('/youtube/v3/playlistItems', (request, reply) => {
      const query = guard(request, reply);
      if (query === undefined) return reply;
      const channelId = `UC${(query.playlistId ?? '').slice(2)}`;
      const channel = channels.get(channelId);
      if (channel === undefined) return reply.code(404).send({ error: { code: 404, message: 'The playlist identified with the request\'s <code>playlistId</code> parameter cannot be found.', errors: [{ reason: 'playlistNotFound' }] } });
      // Uploads come newest first.
      const videos = [...channel.videos].reverse();
      const size = Math.min(Number(query.maxResults ?? 5), 50);
      const start = query.pageToken === undefined ? 0 : Number(Buffer.from(query.pageToken, 'base64url').toString());
      const next = start + size < videos.length ? Buffer.from(String(start + size)).toString('base64url') : undefined;
      return listOf('playlistItem', videos.slice(start, start + size).map((video, index) => picked(query, {
        kind: 'youtube#playlistItem', etag: `etag-${video.id}`, id: Buffer.from(`${query.playlistId ?? ''}.${video.id}`).toString('base64url'),
        snippet: {
          publishedAt: video.publishedAt, channelId, title: video.title, description: '', thumbnails: thumbnails(video.id), channelTitle: channel.title,
          playlistId: query.playlistId, position: start + index, resourceId: { kind: 'youtube#video', videoId: video.id }, videoOwnerChannelId: channelId,
        },
        contentDetails: { videoId: video.id, videoPublishedAt: video.publishedAt },
      })), { next, total: videos.length });
    });
    app.get('/youtube/v3/videos', (request, reply) => {
      const query = guard(request, reply);
      if (query === undefined) return reply;
      const ids = (query.id ?? '').split(',');
      if (ids.length > 50) return reply.code(400).send({ error: { code: 400, message: 'The request specifies an invalid filter parameter.', errors: [{ reason: 'invalidFilters' }] } });
      const all = [...channels.values()].flatMap((channel) => channel.videos.map((video) => ({ video, channel })));
      return listOf('video', ids.flatMap((id) => all.filter(({ video }) => video.id === id)).map(({ video, channel }) => picked(query, {
        kind: 'youtube#video', etag: `etag-${video.id}`, id: video.id,
        snippet: {
          publishedAt: video.publishedAt, channelId: video.channelId, title: video.title, description: '', thumbnails: thumbnails(video.id), channelTitle: channel.title,
          tags: video.tags, categoryId: '28', liveBroadcastContent: 'none', localized: { title: video.title, description: '' },
        },
        contentDetails: { duration: video.duration, dimension: '2d', definition: 'hd', caption: 'false', licensedContent: false, projection: 'rectangular' },
        statistics: { viewCount: String(video.viewCount), likeCount: String(video.viewCount / 100), favoriteCount: '0', commentCount: '7' },
      })), { total: ids.length });
    });
  });

  return {
    api,
    baseUrl: `${api.url}/youtube/v3`,
    get apiKey() { return state.apiKey; },
    set apiKey(value) { state.apiKey = value; },
    channels,
    close: () => api.close(),
  };
}

/** A channel of 120 uploads, its uploads playlist read 50 a page. */
export const youtubeContract: ContractVendor = {
  type: 'video_analytics',
  async start() {
    const key = 'youtube-contract-key';
    const fake = await startFakeYouTube({ apiKey: key, channels: { UCabcdEFGHijklMNOPqrstUV: 120 } });
    return {
      api: fake.api, env: { VIDEO_ANALYTICS_API_KEY: key }, pagedPath: '/youtube/v3/playlistItems', table: 'playlist_items', key: 'id',
      section: ['generic_config:', '  channel_ids: [UCabcdEFGHijklMNOPqrstUV]', `  base_url: "${fake.baseUrl}"`],
      revoke() {
        fake.apiKey = 'a-new-key';
        return () => { fake.apiKey = key; };
      },
      refusal: () => `GET ${fake.baseUrl}/channels answered 400 Bad Request: API key not valid. Please pass a valid API key.`,
    };
  },
};
