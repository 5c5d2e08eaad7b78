import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import type { DashboardService, SupersetProcess } from '../dashboard/index.ts';
import type { DocsServer } from '../transform/index.ts';
import type { WatcherProcess } from '../watcher/index.ts';
import { publicStaticRoot } from '../web/index.ts';
import {
  handleClientError, handleFrameworkError, installAuthentication, installBodyTypeCheck, installCsrfProtection, installDotSegmentCheck, installErrorHandler,
  installOpenApi, installRateLimits, installSecurityHeaders,
} from './plugins/index.ts';
import { accountRoutes } from './routes/account.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { authRoutes } from './routes/auth.ts';
import { installDashboardProxy } from './routes/dashboard.ts';
import { dashboardConfigRoutes } from './routes/dashboard-config.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { catalogRoutes } from './routes/catalog.ts';
import { pageRoutes } from './routes/pages.ts';
import { queryRoutes } from './routes/query.ts';
import { csvFileRoutes } from './routes/csv-files.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { warehouseRoutes } from './routes/warehouse.ts';
import { sourceConfigRoutes } from './routes/source-config.ts';
import { sourceChangeRoutes } from './routes/source-changes.ts';
import { sourceRoutes } from './routes/sources.ts';
import { statusRoutes } from './routes/status.ts';
import { installTransformDocsProxy } from './routes/transform-docs.ts';
import { transformRoutes } from './routes/transform.ts';
import { userRoutes } from './routes/users.ts';
import { websocketRoutes } from './routes/websocket.ts';
import { requestLogger } from './request-logger.ts';
import type { WebSocketHub } from './websocket-hub.ts';
import { OneLinePerRequest } from './request-log.ts';

declare module 'fastify' {
  interface FastifyInstance {
    websocketHub: WebSocketHub;
  }
}

/** The started parts the HTTP app serves besides the context (startPlatform starts and stops them). */
export interface AppParts {
  /** Fans events out to /ws clients. */
  readonly hub: WebSocketHub;
  /** The file watcher, when this process runs one (its status is reported at /api/watcher/status). */
  readonly watcher?: WatcherProcess | undefined;
  /** The transformation-docs site's upstream, proxied at /transform-docs/ (502 without it). */
  readonly docsServer?: DocsServer | undefined;
  /** Superset, proxied at /dashboard/ (502 without it). */
  readonly superset?: SupersetProcess | undefined;
  /** What keeps Superset's accounts and warehouse in step with the platform; present with `superset`. */
  readonly dashboard?: DashboardService | undefined;
  /** Whether the dashboard tool is meant to run (false with `--no-dashboard` or dashboard.enabled off). */
  readonly dashboardEnabled: boolean;
  /** The level of a request's line when it was answered without a server error (OneLinePerRequest). */
  readonly answeredRequestsLevel: 'info' | 'debug';
}

/** Assembles the HTTP app over a context and started parts; the caller listens and closes. */
export async function buildApp(ctx: AppContext, parts: AppParts): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = ctx.log.child({ module: 'http' });
  const app = Fastify({
    loggerInstance: logger,
    logController: new OneLinePerRequest(parts.answeredRequestsLevel),
    childLoggerFactory: requestLogger,
    trustProxy: ctx.config.trusted_proxies.length > 0 ? [...ctx.config.trusted_proxies] : false,
    bodyLimit: 1024 * 1024,
    requestTimeout: 120_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
    routerOptions: { maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, (text) => ctx.redactor.redact(text));

  await installRateLimits(app, ctx.config);
  installDotSegmentCheck(app);
  await app.register(cookie);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  installAuthentication(app, ctx);
  installCsrfProtection(app, ctx.config.web.public_url);
  installBodyTypeCheck(app);
  installSecurityHeaders(app);
  await installOpenApi(app, ctx.version);

  await app.register(fastifyStatic, { root: publicStaticRoot, serve: false });
  app.get('/static/public/*', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const { '*': file } = request.params as { '*': string };
    return reply.header('cache-control', 'public, max-age=3600').sendFile(file);
  });

  const { hub, dashboard } = parts;
  app.decorate('websocketHub', hub);

  const { dashboardEnabled } = parts;
  await app.register(statusRoutes, { ctx, watcher: parts.watcher, docsServer: parts.docsServer, dashboard: parts.superset, dashboardEnabled });
  const bridge = dashboard?.bridge;
  await app.register(authRoutes, { ctx, dashboard: bridge });
  await app.register(accountRoutes, { ctx });
  await app.register(apiKeyRoutes, { ctx });
  await app.register(sourceRoutes, { ctx });
  await app.register(sourceConfigRoutes, { ctx });
  await app.register(sourceChangeRoutes, { ctx });
  // Only the CSV upload parses multipart, so only its scope has the parser: the proxies' reply-from warns of every scope that does.
  await app.register(async (uploads) => {
    await uploads.register(multipart, { limits: { fileSize: ctx.config.limits.max_upload_mb * 1024 * 1024, files: 1, fields: 5, parts: 6 } });
    await uploads.register(csvFileRoutes, { ctx });
  });
  await app.register(transformRoutes, { ctx });
  await app.register(scheduleRoutes, { ctx });
  await app.register(warehouseRoutes, { ctx });
  await app.register(queryRoutes, { ctx });
  await app.register(catalogRoutes, { ctx });
  await installTransformDocsProxy(app, parts.docsServer, ctx.paths);
  await installDashboardProxy(app, ctx, parts.superset, dashboard);
  await app.register(dashboardConfigRoutes, { ctx, superset: parts.superset, dashboard, enabled: dashboardEnabled });
  await app.register(userRoutes, { ctx, dashboard });
  await app.register(oauthRoutes, { ctx });
  await app.register(websocketRoutes, { hub, publicUrl: ctx.config.web.public_url });
  await app.register(pageRoutes, { ctx, oauthButtons: ctx.oauth.configured() });
  return app;
}
