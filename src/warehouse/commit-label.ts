import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS } from './lake-location.ts';
import { quoteLiteral } from './sql.ts';

/** Who a snapshot belongs to: the job that committed it, stored with the snapshot (`commit_extra_info`). */
export interface CommitLabel {
  readonly job: number;
  readonly kind: string;
  /** The job's target: the source of a sync or restore, the selection of a model run. */
  readonly target: string;
}

/** The author every snapshot Quarry commits carries, so `warehouse snapshots` tells them from dbt's. */
export const QUARRY_AUTHOR = 'quarry';

/** Sets the open transaction's commit message and extra info to `label`, so its snapshot names its job. */
export async function applyCommitLabel(connection: DuckDBConnection, label: CommitLabel): Promise<void> {
  const message = `${label.kind} ${label.target} (job ${String(label.job)})`;
  const extra = JSON.stringify({ job: label.job, kind: label.kind, source: label.target });
  await connection.run(`CALL ${LAKE_ALIAS}.set_commit_message(${quoteLiteral(QUARRY_AUTHOR)}, ${quoteLiteral(message)}, extra_info => ${quoteLiteral(extra)})`);
}
