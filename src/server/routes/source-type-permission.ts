import type { FastifyRequest } from 'fastify';
import { assertCanConfigureSource } from '../../auth/index.ts';
import { isSourceTypeKey, SOURCE_TYPES } from '../../sources/config/index.ts';
import { requireActor } from '../plugins/index.ts';

/**
 * Throws ForbiddenError unless the caller may add, edit, test, enable or remove a source of `type`; an unknown
 * type is left to the addition's own check, which names the known ones.
 */
export function assertMayConfigureType(request: FastifyRequest, type: string): void {
  if (isSourceTypeKey(type)) assertCanConfigureSource(requireActor(request), SOURCE_TYPES[type]);
}
