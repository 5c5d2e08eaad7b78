import { z } from 'zod';
import { EnvVarName } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

/** Pub/Sub resource names: letters first, then letters, digits and `-_.~+%`, 3 to 255 characters. */
const ResourceName = z.string().regex(/^[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Pub/Sub name: start with a letter, then letters, digits or -_.~+%`,
});

const ProjectId = z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a Google Cloud project id`,
});

export const CloudStreamConfig = genericConfig({
  /** Defaults to the service account key's project. */
  project_id: ProjectId.optional(),
  subscription: ResourceName.optional(),
  credentials_env: EnvVarName.default('CLOUD_STREAM_CREDENTIALS'),
  /** Messages asked for per pull request (Pub/Sub allows up to 1,000). */
  batch_size: z.int().min(1).max(1000).default(1000),
  /** Stops a sync after this many messages, so a busy topic cannot keep one sync running forever. */
  max_messages: z.int().min(1).default(100_000),
  /** The table messages land in. */
  table_name: z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'use lowercase letters, digits and underscores' }).default('messages'),
}).refine((config) => config.subscription !== undefined, { path: ['subscription'], error: 'required: the subscription to pull from' });
export type CloudStreamConfig = z.output<typeof CloudStreamConfig>;

export const cloudStreamType = defineSourceType({
  key: 'cloud_stream', category: 'Streaming', authType: 'Service Account', wizard: true, incremental: true,
  section: 'generic', schema: CloudStreamConfig,
});
