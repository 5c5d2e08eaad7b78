import { ForbiddenError } from '../errors.ts';
import type { Role } from '../store/index.ts';

const VIEWER = ['data.read', 'own_account.manage'] as const;
const EDITOR = [...VIEWER, 'sources.sync', 'sources.configure', 'models.run', 'files.write', 'schedules.run'] as const;
const ADMIN = [...EDITOR, 'users.manage', 'config.write', 'audit.read'] as const;
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
