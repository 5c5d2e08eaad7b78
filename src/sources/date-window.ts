/** The days a backfill re-loads, `YYYY-MM-DD`, both included. */
export interface DateWindow {
  readonly since: string;
  readonly until: string;
}
