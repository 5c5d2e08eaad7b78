import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDashboardDefinitions } from '../../src/dashboard/index.ts';
import { chartParams } from '../../src/dashboard/dashboard-provisioner.ts';
import { createLogger } from '../../src/logger.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dashboardsFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'quarry-dashboards-'));
  folders.push(folder);
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(folder, name), content);
  return folder;
}

function capturingLogger() {
  const records: { msg: string; file?: string; problems?: string }[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line: string) => { records.push(JSON.parse(line) as never); } } });
  return { log, records };
}

const valid = { title: 'Sales', charts: [{ type: 'big_number', title: 'Revenue', dataset: 'marts.revenue', metric: 'SUM(revenue)' }] };

describe('dashboards/*.json', () => {
  it('reads each valid file, its slug from the file name', () => {
    const { log } = capturingLogger();
    const folder = dashboardsFolder({ 'sales.json': JSON.stringify(valid), 'README.md': '# not a dashboard' });
    expect(loadDashboardDefinitions(folder, log)).toEqual([{ slug: 'sales', ...valid }]);
  });

  it('skips, with the reason in the log, files that are not JSON, break the format or have no slug for a name', () => {
    const { log, records } = capturingLogger();
    const folder = dashboardsFolder({
      'broken.json': '{"title": ',
      'unknown-type.json': JSON.stringify({ title: 'x', charts: [{ type: 'radar', title: 't', dataset: 'marts.a', metric: 'COUNT(*)' }] }),
      'injected.json': JSON.stringify({ title: 'x', charts: [{ type: 'bar', title: 't', dataset: 'marts.a; drop table x', x: 'a', metric: 'COUNT(*)' }] }),
      'extra-field.json': JSON.stringify({ ...valid, owner: 'someone' }),
      'Capital Name.json': JSON.stringify(valid),
    });
    expect(loadDashboardDefinitions(folder, log)).toEqual([]);
    const skipped = Object.fromEntries(records.map((record) => [path.basename(record.file ?? ''), record.msg]));
    expect(skipped).toEqual({
      'broken.json': 'dashboard file skipped: it is not readable JSON',
      'unknown-type.json': 'dashboard file skipped: it does not match the dashboard format',
      'injected.json': 'dashboard file skipped: it does not match the dashboard format',
      'extra-field.json': 'dashboard file skipped: it does not match the dashboard format',
      'Capital Name.json': expect.stringContaining('its name must be a slug'),
    });
    expect(records.find((record) => record.file?.endsWith('injected.json'))?.problems).toContain('schema.table');
  });

  it('is empty for a project without the folder', () => {
    const { log, records } = capturingLogger();
    expect(loadDashboardDefinitions(path.join(tmpdir(), 'quarry-no-such-folder', 'dashboards'), log)).toEqual([]);
    expect(records).toEqual([]);
  });
});

describe('chart parameters', () => {
  it('orders a table chart by its column, descending unless asked otherwise', () => {
    const params = chartParams({ type: 'table', title: 't', dataset: 'marts.c', columns: ['customer', 'revenue'], order_by: 'revenue', descending: true, limit: 10 }, 7);
    expect(params).toMatchObject({ viz_type: 'table', datasource: '7__table', query_mode: 'raw', all_columns: ['customer', 'revenue'], row_limit: 10, order_by_cols: ['["revenue",false]'] });
  });

  it('gives a bar chart its x axis and one metric', () => {
    const params = chartParams({ type: 'bar', title: 't', dataset: 'marts.m', x: 'order_month', metric: 'SUM(revenue)' }, 3);
    expect(params).toMatchObject({ viz_type: 'echarts_timeseries_bar', x_axis: 'order_month', metrics: [{ expressionType: 'SQL', sqlExpression: 'SUM(revenue)' }] });
  });
});
