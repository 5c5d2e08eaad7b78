import { z } from 'zod';
import { SOURCE_RESOURCES } from '../source-types.ts';
import { EnvVarName, NumericId, resourceList } from './field-types.ts';
import { genericConfig } from './generic-config.ts';

export const TaskTrackerConfig = genericConfig({
  access_token_env: EnvVarName.default('TASK_TRACKER_ACCESS_TOKEN'),
  /** Workspace gids to read; absent means every workspace the token's user belongs to. */
  workspace_gids: z.array(NumericId).min(1).optional(),
  resources: resourceList(SOURCE_RESOURCES.task_tracker),
});
export type TaskTrackerConfig = z.output<typeof TaskTrackerConfig>;
