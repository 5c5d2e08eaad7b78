import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { DashboardService, SupersetProcess } from '../../dashboard/index.ts';
import { requireAction, requireActor } from '../plugins/index.ts';
import { webUrl } from './web-url.ts';

const DashboardConfig = z.object({
  dashboard_url: z.string(),
  enabled: z.boolean(),
  running: z.boolean(),
  state: z.enum(['disabled', 'starting', 'running', 'stopped', 'failed', 'not_running']),
  database: z.object({
    id: z.number().int(),
    name: z.string(),
    datasets: z.array(z.string()).describe('schema.table of each dataset, one per marts table'),
    refreshed_at: z.string(),
  }).nullable().describe('the warehouse replica as registered in the dashboard tool; null until the first sync has published it and the tool has seen it'),
  account: z.object({
    username: z.string(),
    active: z.boolean(),
    synced_at: z.string(),
  }).nullable().describe("the caller's dashboard account; its password is never shown"),
});

export const dashboardConfigRoutes: FastifyPluginCallbackZod<{
  ctx: AppContext; superset: SupersetProcess | undefined; dashboard: DashboardService | undefined; enabled: boolean;
}> = (app, { ctx, superset, dashboard, enabled }, done) => {
  app.get('/api/dashboard-config', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['platform'], summary: 'The dashboard tool: where it is, whether it runs, your account there', response: { 200: DashboardConfig } },
  }, async (request) => {
    const account = await dashboard?.bridge.account(requireActor(request).userId);
    const warehouse = dashboard?.warehouse();
    const state = !enabled ? 'disabled' as const : superset?.status().state ?? 'not_running' as const;
    return {
      dashboard_url: `${webUrl(ctx, request.server)}/dashboard/`,
      enabled,
      running: state === 'running',
      state,
      database: warehouse === undefined ? null
        : { id: warehouse.id, name: warehouse.name, datasets: [...warehouse.datasets], refreshed_at: warehouse.refreshedAt },
      account: account === undefined ? null : { username: account.username, active: account.active, synced_at: account.syncedAt },
    };
  });
  done();
};
