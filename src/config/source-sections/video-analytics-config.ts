import { z } from 'zod';
import { boundsInOrder, CalendarDate, EnvVarName, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

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

export const videoAnalyticsType = defineSourceType({
  key: 'video_analytics', category: 'Marketing & Analytics', authType: 'API Key', wizard: true, incremental: false,
  section: 'generic', schema: VideoAnalyticsConfig,
  resources: RESOURCES,
});
