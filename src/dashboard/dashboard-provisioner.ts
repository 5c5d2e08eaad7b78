import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describeError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ChartDefinition, DashboardDefinition } from './dashboard-definitions.ts';
import type { SupersetApi } from './superset-api.ts';
import type { TableName } from './warehouse-registration.ts';

interface AdhocMetric { expressionType: 'SQL'; sqlExpression: string; label: string }

const metricOf = (sql: string): AdhocMetric => ({ expressionType: 'SQL', sqlExpression: sql, label: sql });

/** Superset's form data (a chart's `params`) for one chart definition. */
export function chartParams(chart: ChartDefinition, datasetId: number): Record<string, unknown> {
  const base = { datasource: `${String(datasetId)}__table`, adhoc_filters: [] };
  switch (chart.type) {
    case 'big_number':
      return { ...base, viz_type: 'big_number_total', metric: metricOf(chart.metric), y_axis_format: 'SMART_NUMBER' };
    case 'bar':
      return {
        ...base, viz_type: 'echarts_timeseries_bar', x_axis: chart.x, time_grain_sqla: 'P1M', metrics: [metricOf(chart.metric)], groupby: [],
        row_limit: 10_000, show_legend: false, rich_tooltip: true, y_axis_format: 'SMART_NUMBER', orientation: 'vertical',
      };
    case 'pie':
      return {
        ...base, viz_type: 'pie', groupby: [chart.group_by], metric: metricOf(chart.metric), row_limit: 100, sort_by_metric: true,
        show_labels: true, label_type: 'key_percent', show_legend: true, donut: true,
      };
    case 'table':
      return {
        ...base, viz_type: 'table', query_mode: 'raw', all_columns: chart.columns, row_limit: chart.limit, server_pagination: false,
        // Superset keeps each raw-mode ordering as a JSON string: [column, ascending].
        order_by_cols: chart.order_by === undefined ? [] : [JSON.stringify([chart.order_by, !chart.descending])],
      };
  }
}

function tableOf(dataset: string): TableName {
  const [schema = '', name = ''] = dataset.split('.');
  return { schema, name };
}

/**
 * Creates each dashboard a project ships, once its datasets exist, and remembers the slugs it
 * created (beside Superset's metadata DB) so a dashboard someone deleted or edited in Superset is left alone.
 */
export class DashboardProvisioner {
  readonly #api: SupersetApi;
  readonly #recordFile: string;
  readonly #log: Logger;

  constructor(options: { api: SupersetApi; recordFile: string; log: Logger }) {
    this.#api = options.api;
    this.#recordFile = options.recordFile;
    this.#log = options.log;
  }

  /** `datasetId` answers for `schema.table`; a dashboard with a dataset still missing waits for the next call. */
  async provision(definitions: readonly DashboardDefinition[], datasetId: (table: TableName) => number | undefined): Promise<void> {
    const done = this.#provisioned();
    for (const definition of definitions) {
      if (done.has(definition.slug)) continue;
      const charts: { chart: ChartDefinition; datasetId: number }[] = [];
      for (const chart of definition.charts) {
        const id = datasetId(tableOf(chart.dataset));
        if (id !== undefined) charts.push({ chart, datasetId: id });
      }
      if (charts.length < definition.charts.length) continue;
      await this.#create(definition, charts);
      done.add(definition.slug);
      this.#record(done);
    }
  }

  /** The slugs created so far, in order. */
  provisioned(): string[] {
    return [...this.#provisioned()].sort();
  }

  /** A dashboard already there under the slug was made by someone else, and is left as it is. */
  async #create(definition: DashboardDefinition, charts: readonly { chart: ChartDefinition; datasetId: number }[]): Promise<void> {
    const existing = await this.#api.list<{ id: number; slug: string | null }>('/api/v1/dashboard/', { col: 'slug', opr: 'eq', value: definition.slug });
    if (existing.some((dashboard) => dashboard.slug === definition.slug)) return;
    const dashboard = await this.#api.request<{ id: number }>('POST', '/api/v1/dashboard/', { dashboard_title: definition.title, slug: definition.slug, published: true });
    const created: number[] = [];
    try {
      for (const { chart, datasetId } of charts) {
        const params = chartParams(chart, datasetId);
        const { id } = await this.#api.request<{ id: number }>('POST', '/api/v1/chart/', {
          slice_name: chart.title, viz_type: params.viz_type, datasource_id: datasetId, datasource_type: 'table',
          params: JSON.stringify(params), dashboards: [dashboard.id],
        });
        created.push(id);
      }
    } catch (error) {
      // Half a dashboard would be taken for a finished one next time: remove what was made and retry later.
      for (const id of created) await this.#api.request('DELETE', `/api/v1/chart/${String(id)}`).catch(() => undefined);
      await this.#api.request('DELETE', `/api/v1/dashboard/${String(dashboard.id)}`).catch(() => undefined);
      throw error;
    }
    this.#log.info({ slug: definition.slug, charts: charts.length }, 'dashboard created in the dashboard tool');
  }

  /** An unreadable record is taken as empty (logged): at worst a shipped dashboard someone deleted comes back. */
  #provisioned(): Set<string> {
    if (!existsSync(this.#recordFile)) return new Set();
    try {
      return new Set(z.array(z.string()).parse(JSON.parse(readFileSync(this.#recordFile, 'utf8'))));
    } catch (error) {
      this.#log.warn({ file: this.#recordFile, reason: describeError(error) }, 'the record of created dashboards is unreadable; starting it again');
      return new Set();
    }
  }

  #record(slugs: ReadonlySet<string>): void {
    mkdirSync(path.dirname(this.#recordFile), { recursive: true });
    const temporary = `${this.#recordFile}.tmp`;
    const handle = openSync(temporary, 'w');
    try {
      writeFileSync(handle, `${JSON.stringify([...slugs].sort())}\n`);
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
    renameSync(temporary, this.#recordFile);
  }
}
