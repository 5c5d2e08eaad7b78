import type { FastifyReply } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../../errors.ts';

/** Answers `{detail, code}` (and `extra`, such as a validation's `errors`) with the status ERROR_CODES gives `code`. */
export function sendError(reply: FastifyReply, code: ErrorCode, detail: string, extra: Readonly<Record<string, unknown>> = {}): FastifyReply {
  return reply.code(ERROR_CODES[code].status).send({ detail, code, ...extra });
}
