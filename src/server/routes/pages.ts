import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { renderHomePage, renderLoginPage } from '../../web/index.ts';
import { requireActor } from '../plugins/index.ts';
import { safeNextPath } from './safe-next-path.ts';

const LoginQuery = z.object({ next: z.string().max(2048).optional(), error: z.string().max(64).optional() });

export const pageRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const hidden = { hide: true };

  app.get('/login', { config: { public: true }, schema: { ...hidden, querystring: LoginQuery } }, async (request, reply) => {
    const next = safeNextPath(request.query.next);
    if (request.actor !== null && request.sessionStage === 'full') return reply.redirect(next, 303);
    return reply.type('text/html; charset=utf-8')
      .send(renderLoginPage({ next, error: request.query.error, projectName: ctx.config.name }));
  });

  app.get('/', { schema: hidden }, async (request, reply) => {
    const actor = requireActor(request);
    return reply.type('text/html; charset=utf-8')
      .send(renderHomePage({ user: actor, projectName: ctx.config.name, version: ctx.version }));
  });

  done();
};
