import { ForbiddenError } from '../errors.ts';
import type { SourceType } from '../sources/config/index.ts';
import type { Role } from '../store/index.ts';

const VIEWER = ['data.read', 'own_account.manage'] as const;
const EDITOR = [...VIEWER, 'sources.sync', 'sources.configure', 'models.run', 'files.write', 'schedules.run'] as const;
// `code.configure`: adding, editing, testing, enabling or removing a source whose type runs code on the server.
const ADMIN = [...EDITOR, 'users.manage', 'config.write', 'audit.read', 'code.configure'] as const;
export type Action = (typeof ADMIN)[number];

const GRANTS: Record<Role, readonly Action[]> = { viewer: VIEWER, editor: EDITOR, admin: ADMIN };

/** Who is asking: the user behind a session or an API key, with that user's current role. */
export interface Actor {
  readonly userId: number;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly authMethod: 'session' | 'api_key';
  readonly sessionId: string | null;
  readonly apiKeyId: string | null;
}

export const can = (actor: Actor, action: Action): boolean => GRANTS[actor.role].includes(action);

export function assertCan(actor: Actor, action: Action): void {
  if (!can(actor, action)) throw new ForbiddenError(`Your role (${actor.role}) does not allow this`);
}

/**
 * Throws ForbiddenError unless the actor may configure a source of `type`: `sources.configure`, and
 * `code.configure` too when the type runs code on the server (syncing a saved one needs only `sources.sync`).
 */
export function assertCanConfigureSource(actor: Actor, type: Pick<SourceType, 'key' | 'runsCode'>): void {
  assertCan(actor, 'sources.configure');
  if (type.runsCode && !can(actor, 'code.configure')) {
    throw new ForbiddenError(`Only an admin configures a ${type.key} source: it runs code on the server, and your role is ${actor.role}`);
  }
}
