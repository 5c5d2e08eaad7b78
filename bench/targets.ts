// What each benchmarked path must reach, by the stable id of its row. A new target is
// one entry here plus that id on the row its benchmark returns; rows without an entry print no target.
export interface MeasuredRow {
  /** The figure divided by its baseline's: time over time for loads, requests/s over requests/s for the API. */
  readonly ratio: number;
  readonly p99Ms?: number | undefined;
  readonly peakMb?: number | undefined;
}

export interface Target {
  /** As printed beside the row. */
  readonly goal: string;
  readonly met: (row: MeasuredRow) => boolean;
}

const authenticatedApi: Target = {
  goal: '>= 0.85 of bare Fastify, p99 <= 6 ms',
  met: (row) => row.ratio >= 0.85 && row.p99Ms !== undefined && row.p99Ms <= 6,
};

const atMost = (ratio: number, baseline: string): Target => ({ goal: `<= ${ratio.toFixed(2)}x ${baseline}`, met: (row) => row.ratio <= ratio });

export const TARGETS: Readonly<Record<string, Target>> = {
  'api.session': authenticatedApi,
  'api.api_key': authenticatedApi,
  'rest.rest_api': atMost(1.5, 'download and parse'),
  'postgres.relational_db': atMost(1.3, 'COPY TO STDOUT'),
  'load.local_files': atMost(1.15, 'DuckDB read_csv CTAS into a lake'),
  'incremental.beside_large': atMost(1.2, 'the same re-sync in an empty project'),
  'size.lake': atMost(1.3, "DuckDB's own file"),
  'query.api_during_sync': atMost(1.5, 'idle (p99)'),
  'query.api': atMost(1.2, 'DuckDB in-process'),
  'transform.build': atMost(0.3, 'cold dbt build'),
  'models.build': atMost(0.5, 'dbt build with 4 threads on a DuckDB file'),
  'models.queued': atMost(0.35, 'dbt build with 4 threads on a DuckDB file'),
  'objects.filesystem': atMost(1.2, "DuckDB's read_csv from the same bucket"),
  'objects.incremental': { goal: '< 0.05x the full sync', met: (row) => row.ratio < 0.05 },
  // Time over time: two workers at 1/1.7 of one worker's time is 1.7x its throughput.
  'memory.small_files': { goal: '<= 400 MB peak RSS', met: (row) => row.peakMb !== undefined && row.peakMb <= 400 },
  'deployment.two_workers': atMost(1 / 1.7, "one worker's time (>= 1.7x the throughput)"),
};
