import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EMAIL_PATTERN, MIN_PASSWORD_LENGTH } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import type { DashboardService } from '../../dashboard/index.ts';
import { ROLES, type UserRecord } from '../../store/index.ts';
import { requireActor, requireAction } from '../plugins/index.ts';

const User = z.object({
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  active: z.boolean(),
  created_at: z.string(),
});

// `.meta` documents what auth/ accepts without validating it here, so a refusal keeps auth's own code and
// reason (weak_password, "is not an email address") rather than a generic schema error.
const Email = z.string().min(3).max(320).meta({ pattern: EMAIL_PATTERN.source });

const NewUser = z.object({
  email: Email,
  name: z.string().max(200).default(''),
  role: z.enum(ROLES),
  password: z.string().min(1).max(4096).meta({ minLength: MIN_PASSWORD_LENGTH, description: `at least ${String(MIN_PASSWORD_LENGTH)} characters, not a commonly used password` }),
});

const Changes = z.object({
  role: z.enum(ROLES).optional(),
  active: z.boolean().optional(),
  name: z.string().max(200).optional(),
}).refine((changes) => Object.keys(changes).length > 0, 'give at least one of role, active, name').meta({ minProperties: 1 });

const AuditEntry = z.object({
  timestamp: z.string(),
  event: z.string(),
  actor: z.string().nullable(),
  subject: z.string().nullable(),
  ip: z.string().nullable(),
  detail: z.string().nullable(),
});

const Params = z.object({ email: Email });

function present(user: UserRecord): z.infer<typeof User> {
  return { email: user.email, name: user.name, role: user.role, active: user.active, created_at: user.createdAt };
}

/** User administration: admins only. */
export const userRoutes: FastifyPluginCallbackZod<{ ctx: AppContext; dashboard: DashboardService | undefined }> = (app, { ctx, dashboard }, done) => {
  const manageUsers = requireAction('users.manage');

  app.get('/api/users', {
    preHandler: manageUsers,
    schema: { tags: ['users'], summary: 'All users', response: { 200: z.array(User) } },
  }, async () => (await ctx.auth.listUsers()).map(present));

  app.post('/api/users', {
    preHandler: manageUsers,
    schema: { tags: ['users'], summary: 'Add a user', body: NewUser, response: { 201: User } },
  }, async (request, reply) => {
    const user = await ctx.auth.addUser(request.body, requireActor(request));
    request.log.info({ user: user.email, role: user.role }, 'user added');
    await dashboard?.userChanged(user);
    return reply.code(201).send(present(user));
  });

  app.patch('/api/users/:email', {
    preHandler: manageUsers,
    schema: { tags: ['users'], summary: 'Change a user\'s role, name or active flag', params: Params, body: Changes, response: { 200: User } },
  }, async (request) => {
    const user = await ctx.auth.updateUser(requireActor(request), request.params.email, request.body);
    request.log.info({ user: user.email, role: user.role, active: user.active }, 'user changed');
    await dashboard?.userChanged(user);
    return present(user);
  });

  app.delete('/api/users/:email', {
    preHandler: manageUsers,
    schema: { tags: ['users'], summary: 'Delete a user', params: Params, response: { 200: z.object({ success: z.boolean() }) } },
  }, async (request) => {
    const deleted = await ctx.auth.deleteUser(requireActor(request), request.params.email);
    request.log.info({ user: deleted.email }, 'user deleted');
    await dashboard?.userRemoved(deleted.id);
    return { success: true };
  });

  app.get('/api/audit', {
    preHandler: requireAction('audit.read'),
    schema: {
      tags: ['users'],
      summary: 'Security events, newest first (logins, lockouts, keys, two-factor and role changes)',
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(10_000).default(200) }),
      response: { 200: z.array(AuditEntry) },
    },
  }, async (request) => (await ctx.auth.auditLog(request.query.limit)).map((event) => ({
    timestamp: event.at, event: event.event, actor: event.actorEmail, subject: event.subject, ip: event.ip, detail: event.detail,
  })));

  done();
};
