import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const SOURCES = `sources:
  - name: orders
    type: local_files
    local_files:
      directory: data/orders
  - name: crm
    type: crm_a
    enabled: false
    crm_a: {}
`;

describe('platform endpoints', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('reports the service status with every documented field', async () => {
    const response = await quarry.request('GET', '/api/status', { as: 'viewer' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(['service_version', 'services', 'status', 'uptime']);
    expect(response.json.status).toBe('healthy');
    expect(response.json.service_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(response.json.services.api).toBe('running');
    expect(Object.keys(response.json.services).sort()).toEqual(['api', 'dashboard', 'transform_docs', 'warehouse']);
    for (const value of Object.values(response.json.services)) expect(typeof value).toBe('string');
    expect(response.json.uptime).toMatch(/^(\d+d )?\d+h \d+m \d+s$/);
  });

  it('reports a warehouse that appears or goes while it runs, within a few seconds', async () => {
    const warehouseOf = async (): Promise<string> => (await quarry.request('GET', '/api/status', { as: 'viewer' })).json.services.warehouse;
    const file = quarry.ctx.paths.lakeCatalogFile;
    const existed = existsSync(file);
    try {
      if (existed) renameSync(file, `${file}.aside`);
      await vi.waitFor(async () => { expect(await warehouseOf()).toBe('not_created'); }, { timeout: 10_000, interval: 200 });
      writeFileSync(file, '');
      await vi.waitFor(async () => { expect(await warehouseOf()).toBe('healthy'); }, { timeout: 10_000, interval: 200 });
    } finally {
      rmSync(file, { force: true });
      if (existed) renameSync(`${file}.aside`, file);
    }
  });

  it('counts uptime on the injected clock', async () => {
    quarry.clock.advance((26 * 3600 + 61) * 1000);
    const response = await quarry.request('GET', '/api/status', { as: 'viewer' });
    expect(response.json.uptime).toBe('1d 2h 1m 1s');
  });

  it('reports the configuration object', async () => {
    const response = await quarry.request('GET', '/api/config', { as: 'viewer' });
    expect(response.status).toBe(200);
    // The address it listens on (a free port here), not the configured default 8800.
    expect(response.json).toEqual({
      web_port: Number(new URL(quarry.url).port),
      web_url: quarry.url,
      dashboard_url: `${quarry.url}/dashboard/`,
      transform_docs_url: `${quarry.url}/transform-docs/`,
      api_url: `${quarry.url}/api`,
      project_name: 'Test project',
      organization: 'Test Org',
    });
  });

  it('reports platform health with database, disk and source counts', async () => {
    const response = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(response.status).toBe(200);
    const health = response.json;
    expect(Object.keys(health).sort()).toEqual([
      'critical_issues', 'database', 'disk', 'enabled_sources', 'status', 'sync_failures', 'timestamp',
      'total_sources', 'transform_failures', 'warnings',
    ]);
    expect(['healthy', 'warning', 'critical']).toContain(health.status);
    expect(health.timestamp).toMatch(ISO_UTC);
    expect(health.database).toEqual({ size_mb: expect.any(Number), tables: 0, status: 'small', raw_tables: 0, staging_tables: 0, marts_tables: 0 });
    expect(health.database.size_mb).toBeLessThan(1); // a new project's lake is its empty catalog
    expect(['ok', 'low', 'critical']).toContain(health.disk.status);
    expect(health.disk.total_gb).toBeGreaterThan(0);
    expect(health.disk.free_gb).toBeGreaterThan(0);
    expect(health.disk.free_gb).toBeLessThanOrEqual(health.disk.total_gb);
    expect(health.total_sources).toBe(2);
    expect(health.enabled_sources).toBe(1);
    expect(health.sync_failures).toEqual([]);
    expect(health.transform_failures).toEqual([]);
    expect(Array.isArray(health.critical_issues)).toBe(true);
    expect(Array.isArray(health.warnings)).toBe(true);
  });

  it('reports the watcher status with the configured patterns and directories', async () => {
    const response = await quarry.request('GET', '/api/watcher/status', { as: 'viewer' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      running: false,
      pid: 0,
      auto_sync_enabled: true,
      auto_transform_enabled: false,
      debounce_seconds: 5,
      watch_patterns: ['*.csv', '*.json', '*.jsonl', '*.parquet', '*.xlsx'],
      watch_directories: [`${quarry.dir}/data/orders`],
    });
  });

  it('serves an OpenAPI document that describes every API endpoint', async () => {
    const response = await quarry.request('GET', '/api/openapi.json', { as: 'viewer' });
    expect(response.status).toBe(200);
    expect(response.json.openapi).toMatch(/^3\./);
    const paths = Object.keys(response.json.paths);
    for (const path of ['/api/status', '/api/config', '/api/health/platform', '/api/watcher/status', '/api/auth/login',
      '/api/auth/logout', '/api/auth/me', '/api/auth/api-keys', '/api/auth/api-keys/{id}', '/api/users']) {
      expect(paths).toContain(path);
    }
    const status = response.json.paths['/api/status'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(status.properties).sort()).toEqual(['service_version', 'services', 'status', 'uptime']);
  });

  it('documents what the handlers accept beyond the shape: the upload part and its file name, emails, passwords, codes, session-only operations', async () => {
    const { json: document } = await quarry.request('GET', '/api/openapi.json', { as: 'viewer' });
    const upload = document.paths['/api/sources/{source_name}/upload-csv'].post.requestBody.content['multipart/form-data'];
    expect(upload.schema).toMatchObject({ type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } });
    expect(upload.encoding.file).toEqual({
      contentType: 'text/csv',
      headers: { 'Content-Disposition': { schema: { type: 'string' }, example: 'form-data; name="file"; filename="orders.csv"' } },
    });
    const newUser = document.paths['/api/users'].post.requestBody.content['application/json'].schema;
    expect(newUser.properties.email.pattern).toBe('^[^\\s@]+@[^\\s@]+$');
    expect(newUser.properties.password.minLength).toBe(8);
    expect(document.paths['/api/users/{email}'].patch.requestBody.content['application/json'].schema.minProperties).toBe(1);
    const enable = document.paths['/api/auth/2fa/enable'].post;
    expect(enable.requestBody.content['application/json'].schema.properties.code.pattern).toBe('^[0-9]{6}$');
    for (const step of ['setup', 'enable', 'disable']) expect(document.paths[`/api/auth/2fa/${step}`].post.security).toEqual([{ session: [] }]);
  });

  it('documents every error code with its status and meaning once, as the error answer of every operation', async () => {
    const { json: document } = await quarry.request('GET', '/api/openapi.json', { as: 'viewer' });
    const code = document.components.schemas.Error.properties.code;
    expect(code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(code.description).toContain(`- \`sync_in_progress\` (409): ${ERROR_CODES.sync_in_progress.meaning}`);
    const defaults = Object.values(document.paths).flatMap((operations: any) => Object.values(operations).map((operation: any) => operation.responses.default));
    expect(defaults.length).toBeGreaterThan(30);
    for (const response of defaults) expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('serves Swagger UI at /api/docs and Redoc at /api/redoc from local assets', async () => {
    const docs = await quarry.request('GET', '/api/docs/', { as: 'viewer' });
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger-ui');
    const redoc = await quarry.request('GET', '/api/redoc', { as: 'viewer' });
    expect(redoc.status).toBe(200);
    expect(redoc.text).toContain('/api/redoc/redoc.standalone.js');
    expect(redoc.text).not.toMatch(/https?:\/\//);
    const bundle = await quarry.request('GET', '/api/redoc/redoc.standalone.js', { as: 'viewer' });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const response = await quarry.request('GET', '/api/no-such-thing', { as: 'viewer' });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ detail: 'No endpoint GET /api/no-such-thing', code: 'not_found' });
  });
});
