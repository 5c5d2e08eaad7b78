import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { DashboardBridge, SupersetProcess } from '../../dashboard/index.ts';
import { requireAction, requireActor } from '../plugins/index.ts';
import { webUrl } from './web-url.ts';

const DashboardConfig = z.object({
  dashboard_url: z.string(),
  enabled: z.boolean(),
  running: z.boolean(),
  state: z.enum(['disabled', 'starting', 'running', 'stopped', 'failed', 'not_running']),
  database: z.null().describe('the registered warehouse database; null until warehouse registration lands'),
  account: z.object({
    username: z.string(),
    active: z.boolean(),
    synced_at: z.string(),
  }).nullable().describe("the caller's dashboard account; its password is never shown"),
});

export const dashboardConfigRoutes: FastifyPluginCallbackZod<{
  ctx: AppContext; superset: SupersetProcess | undefined; bridge: DashboardBridge | undefined;
}> = (app, { ctx, superset, bridge }, done) => {
  app.get('/api/dashboard-config', {
    preHandler: requireAction('data.read'),
    schema: { tags: ['platform'], summary: 'The dashboard tool: where it is, whether it runs, your account there', response: { 200: DashboardConfig } },
  }, async (request) => {
    const account = bridge?.account(requireActor(request).userId);
    const enabled = ctx.config.dashboard.enabled;
    const state = !enabled ? 'disabled' as const : superset?.status().state ?? 'not_running' as const;
    return {
      dashboard_url: `${webUrl(ctx)}/dashboard/`,
      enabled,
      running: state === 'running',
      state,
      database: null,
      account: account === undefined ? null : { username: account.username, active: account.active, synced_at: account.syncedAt },
    };
  });
  done();
};
