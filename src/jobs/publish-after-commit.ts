import type { ProjectPaths } from '../config/index.ts';
import { firstLineOf } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { publishReplica } from '../warehouse/index.ts';

export interface JobMessage {
  readonly level: 'INFO' | 'WARNING';
  readonly message: string;
}

/**
 * Refreshes the read-only replica after a job committed. The data is committed by now, so a failure here
 * (a full disk) must not fail the job and lose what it recorded: it is a warning, and readers keep the
 * previous replica. Every job kind that writes the warehouse publishes through this one rule.
 */
export async function publishAfterCommit(paths: ProjectPaths, log: Logger): Promise<JobMessage[]> {
  try {
    await publishReplica(paths.warehouseFile, paths.servingDir);
    return [];
  } catch (error) {
    log.error({ err: error }, 'publishing the read-only replica failed');
    return [{
      level: 'WARNING',
      message: `The data is loaded, but the read-only copy for dashboards could not be refreshed (${firstLineOf(error)}); they show the previous data until the next sync`,
    }];
  }
}
