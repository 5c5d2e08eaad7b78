import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { startFakeYouTube, uploadsOf, type FakeYouTube } from '../fakes/youtube.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const KEY = 'youtube-api-key';
const CHANNEL_A = 'UCabcdEFGHijklMNOPqrstUV';
const CHANNEL_B = 'UCwxyz0123456789abcdefgh';

let youtube: FakeYouTube;
let quarry: TestQuarry;

beforeAll(async () => {
  youtube = await startFakeYouTube({ apiKey: KEY, channels: { [CHANNEL_A]: 120, [CHANNEL_B]: 30 } });
  quarry = await startQuarry({
    env: { VIDEO_ANALYTICS_API_KEY: KEY },
    sourcesYaml: `sources:
  - name: videos
    type: video_analytics
    generic_config: {channel_ids: [${CHANNEL_A}, ${CHANNEL_B}], base_url: "${youtube.baseUrl}"}
  - name: videos_february
    type: video_analytics
    generic_config: {channel_ids: [${CHANNEL_A}], start_date: 2024-02-01, end_date: 2024-02-29, resources: [playlist_items, videos], base_url: "${youtube.baseUrl}"}
`,
  });
});

afterAll(async () => {
  await quarry.close();
  await youtube.close();
});

function requestsTo(path: string, from = 0) {
  return youtube.api.requests.slice(from).filter((request) => request.path === `/youtube/v3/${path}`);
}

describe('video_analytics (YouTube Data API)', () => {
  it('loads the channels, their uploads page by page and every video with its statistics', async () => {
    expect(await syncAndWait(quarry, 'videos')).toMatchObject({ type: 'sync_completed', rows: 2 + 150 + 150 });
    const counts = await quarry.query(`SELECT (SELECT count(*) FROM raw_videos.channels) AS channels,
      (SELECT count(*) FROM raw_videos.playlist_items) AS items, (SELECT count(DISTINCT id) FROM raw_videos.videos) AS videos`);
    expect(counts).toEqual([{ channels: 2, items: 150, videos: 150 }]);
    expect(await quarry.query(`SELECT contentDetails.relatedPlaylists.uploads AS uploads, statistics.videoCount AS count FROM raw_videos.channels WHERE id = '${CHANNEL_B}'`))
      .toEqual([{ uploads: uploadsOf(CHANNEL_B), count: '30' }]);
    const video = await quarry.query(`SELECT snippet.title AS title, snippet.tags[2] AS tag, statistics.viewCount AS views, contentDetails.duration AS duration
      FROM raw_videos.videos WHERE id = 'abcdvid0012'`);
    expect(video).toEqual([{ title: 'Video 12', tag: 'duckdb', views: '12000', duration: 'PT5M12S' }]);

    const pages = requestsTo('playlistItems').filter((request) => request.query.get('playlistId') === uploadsOf(CHANNEL_A));
    expect(pages.map((request) => request.query.has('pageToken'))).toEqual([false, true, true]);
    expect(pages.every((request) => request.query.get('key') === KEY && request.query.get('maxResults') === '50')).toBe(true);
    expect(requestsTo('videos').map((request) => request.query.get('id')!.split(',').length)).toEqual([50, 50, 50]);
  });

  it('keeps to the videos published between start_date and end_date', async () => {
    const before = youtube.api.requests.length;
    expect(await syncAndWait(quarry, 'videos_february')).toMatchObject({ type: 'sync_completed', rows: 29 + 29 });
    const range = await quarry.query(`SELECT min(snippet.publishedAt)::VARCHAR AS first, max(snippet.publishedAt)::VARCHAR AS last FROM raw_videos_february.videos`);
    expect(range).toEqual([{ first: '2024-02-01 00:00:00', last: '2024-02-29 00:00:00' }]);
    expect(requestsTo('channels', before)).toHaveLength(1);
  });

  it('requires channel ids of the right shape, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: videos\n    type: video_analytics\n    generic_config: {api_key_env: YT_KEY}\n  - name: other\n    type: video_analytics\n    generic_config: {channel_ids: ["@acme"]}\n');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.channel_ids: required',
      'sources.yml: sources[1].generic_config.channel_ids[0]: "@acme" is not a channel id: UC followed by 22 letters, digits, _ or -',
    ]);
  });
});
