import { z } from 'zod';
import { EnvVarName, NumericId, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';
import { defineSourceType } from '../source-type-definition.ts';

const RESOURCES = {
  default: ['workspaces', 'projects', 'tasks', 'users'],
  available: ['workspaces', 'projects', 'tasks', 'users', 'sections', 'tags'],
} as const;

export const TaskTrackerConfig = genericConfig({
  access_token_env: EnvVarName.default('TASK_TRACKER_ACCESS_TOKEN'),
  /** Workspace gids to read; absent means every workspace the token's user belongs to. */
  workspace_gids: z.array(NumericId).min(1).optional(),
  resources: resourceList(RESOURCES),
});
export type TaskTrackerConfig = z.output<typeof TaskTrackerConfig>;

export const taskTrackerType = defineSourceType({
  key: 'task_tracker', category: 'Business & CRM', authType: 'API Key', wizard: false, wizardDisabledReason: 'its upstream loader lost its SDK; configure it via native_pipeline', incremental: true,
  section: 'generic', schema: TaskTrackerConfig,
  resources: RESOURCES,
});
