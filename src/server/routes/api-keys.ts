import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../store/index.ts';
import type { AppContext } from '../../context.ts';
import { requireActor, requireAction } from '../plugins/index.ts';
import { SESSION_ONLY } from './session-only.ts';

const CreateBody = z.object({
  name: z.string().min(1).max(100),
  expires_at: z.string().max(40).nullish().describe('ISO 8601 datetime without zone, read as UTC'),
});

const KeySummary = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

const CreatedKey = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().describe('the plaintext key, shown only in this response'),
  prefix: z.string(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});

const Params = z.object({ id: z.string().min(1).max(64) });

function summarize(record: ApiKeyRecord): z.infer<typeof KeySummary> {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    expires_at: record.expiresAt,
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt,
  };
}

export const apiKeyRoutes: FastifyPluginCallbackZod<{ ctx: AppContext }> = (app, { ctx }, done) => {
  const ownAccount = requireAction('own_account.manage');

  app.post('/api/auth/api-keys', {
    preHandler: ownAccount,
    schema: { tags: ['auth'], summary: 'Create an API key (the key is shown once)', security: SESSION_ONLY, body: CreateBody, response: { 201: CreatedKey } },
  }, async (request, reply) => {
    const { record, key } = await ctx.auth.createApiKey(requireActor(request), {
      name: request.body.name,
      expiresAt: request.body.expires_at ?? null,
    });
    request.log.info({ apiKeyId: record.id, prefix: record.prefix }, 'api key created');
    return reply.code(201).send({
      id: record.id, name: record.name, key, prefix: record.prefix, expires_at: record.expiresAt, created_at: record.createdAt,
    });
  });

  app.get('/api/auth/api-keys', {
    preHandler: ownAccount,
    schema: { tags: ['auth'], summary: "The caller's API keys, without the keys themselves", response: { 200: z.array(KeySummary) } },
  }, async (request) => (await ctx.auth.listApiKeys(requireActor(request))).map(summarize));

  app.delete('/api/auth/api-keys/:id', {
    preHandler: ownAccount,
    schema: { tags: ['auth'], summary: 'Revoke an API key', params: Params, response: { 200: z.object({ success: z.boolean(), id: z.string() }) } },
  }, async (request) => {
    await ctx.auth.revokeApiKey(requireActor(request), request.params.id);
    request.log.info({ apiKeyId: request.params.id }, 'api key revoked');
    return { success: true, id: request.params.id };
  });

  done();
};
