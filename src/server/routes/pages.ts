import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { can } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import {
  renderAccountPage, renderChangePasswordPage, renderForbiddenPage, renderHealthPage, renderHomePage, renderLoginPage, renderLogsPage, renderModelsPage,
  renderAddSourcePage, renderNotFoundPage, renderSourcePage, renderUsersPage, renderDataPage, renderTablePage, type OAuthButton,
} from '../../web/index.ts';
import { fileSourceLocation } from '../../jobs/index.ts';
import { sourceObjectsPrefix } from '../../sources/index.ts';
import { requireActor } from '../plugins/index.ts';
import { safeNextPath } from './safe-next-path.ts';

const LoginQuery = z.object({
  next: z.string().max(2048).optional(),
  error: z.string().max(64).optional(),
  step: z.string().max(16).optional(),
});

const SourceParams = z.object({ source_name: z.string().max(200) });
const TableParams = z.object({ schema: z.string().max(200), table: z.string().max(200) });

export const pageRoutes: FastifyPluginCallbackZod<{ ctx: AppContext; oauthButtons: readonly OAuthButton[] }> = (app, { ctx, oauthButtons }, done) => {
  const hidden = { hide: true };
  const asHtml = 'text/html; charset=utf-8';

  app.get('/login', { config: { public: true }, schema: { ...hidden, querystring: LoginQuery } }, async (request, reply) => {
    const next = safeNextPath(request.query.next);
    if (request.actor !== null && request.sessionStage === 'full') return reply.redirect(next, 303);
    return reply.type(asHtml).send(renderLoginPage({ next, error: request.query.error, projectName: ctx.config.name, oauth: oauthButtons }));
  });

  app.get('/', { schema: hidden }, async (request, reply) => {
    const actor = requireActor(request);
    return reply.type(asHtml).send(renderHomePage({ user: actor, projectName: ctx.config.name, version: ctx.version, canSync: can(actor, 'sources.sync'), canRunSchedules: can(actor, 'schedules.run'),
      canAddSources: can(actor, 'sources.configure'),
    }));
  });

  app.get('/sources/new', { schema: hidden }, async (request, reply) => {
    const actor = requireActor(request);
    if (!can(actor, 'sources.configure')) return reply.code(403).type(asHtml).send(renderForbiddenPage({ user: actor }));
    return reply.type(asHtml).send(renderAddSourcePage({ user: actor }));
  });

  app.get('/sources/:source_name/edit', { schema: { ...hidden, params: SourceParams } }, async (request, reply) => {
    const actor = requireActor(request);
    if (!can(actor, 'sources.configure')) return reply.code(403).type(asHtml).send(renderForbiddenPage({ user: actor }));
    const source = ctx.sources.find((candidate) => candidate.name === request.params.source_name);
    if (!source) return reply.code(404).type(asHtml).send(renderNotFoundPage({ user: actor, what: 'Source' }));
    return reply.type(asHtml).send(renderAddSourcePage({ user: actor, editing: source.name }));
  });

  app.get('/sources/:source_name', { schema: { ...hidden, params: SourceParams } }, async (request, reply) => {
    const actor = requireActor(request);
    const source = ctx.sources.find((candidate) => candidate.name === request.params.source_name);
    if (!source) return reply.code(404).type(asHtml).send(renderNotFoundPage({ user: actor, what: 'Source' }));
    const hasFiles = fileSourceLocation(source, ctx.paths.root) !== undefined;
    return reply.type(asHtml).send(renderSourcePage({
      user: actor, name: source.name, type: source.type, canSync: can(actor, 'sources.sync') && source.enabled, canUpload: hasFiles && can(actor, 'files.write'), hasFiles,
      objectsPrefix: sourceObjectsPrefix(source, ctx.paths.root),
      canConfigure: can(actor, 'sources.configure'), enabled: source.enabled,
    }));
  });

  app.get('/models', { schema: hidden }, async (request, reply) => {
    const actor = requireActor(request);
    return reply.type(asHtml).send(renderModelsPage({ user: actor, canRun: can(actor, 'models.run') }));
  });

  app.get('/data', { schema: hidden }, async (request, reply) => {
    return reply.type(asHtml).send(renderDataPage({ user: requireActor(request) }));
  });

  app.get('/data/:schema/:table', { schema: { ...hidden, params: TableParams } }, async (request, reply) => {
    const actor = requireActor(request);
    const { schema, table } = request.params;
    if (!(await ctx.catalog.has(schema, table))) {
      return reply.code(404).type(asHtml).send(renderNotFoundPage({ user: actor, what: 'Table' }));
    }
    return reply.type(asHtml).send(renderTablePage({ user: actor, schema, table }));
  });

  app.get('/logs', { schema: hidden }, async (request, reply) => {
    return reply.type(asHtml).send(renderLogsPage({ user: requireActor(request), sources: ctx.sources.map((source) => source.name) }));
  });

  app.get('/health', { schema: hidden }, async (request, reply) => {
    return reply.type(asHtml).send(renderHealthPage({ user: requireActor(request) }));
  });

  app.get('/settings/account', { schema: hidden }, async (request, reply) => {
    return reply.type(asHtml).send(renderAccountPage({ user: requireActor(request) }));
  });

  app.get('/settings/change-password', { config: { incompleteStages: ['password_change'] }, schema: hidden }, async (request, reply) => {
    return reply.type(asHtml).send(renderChangePasswordPage({ user: requireActor(request), required: request.sessionStage === 'password_change' }));
  });

  app.get('/admin/users', { schema: hidden }, async (request, reply) => {
    const actor = requireActor(request);
    if (!can(actor, 'users.manage')) return reply.code(403).type(asHtml).send(renderForbiddenPage({ user: actor }));
    return reply.type(asHtml).send(renderUsersPage({ user: actor }));
  });

  done();
};
