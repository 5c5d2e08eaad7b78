import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../../errors.ts';
import { sendError } from './error-reply.ts';


/**
 * Answers errors of the HTTP layer itself (a malformed head, oversized headers, a bad Content-Length)
 * in the contract's format instead of Node's bare `400 Bad Request`.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [code, detail] = describe(error.code);
  const status = ERROR_CODES[code].status;
  const body = JSON.stringify({ detail, code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function describe(code: string | undefined): [ErrorCode, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return ['headers_too_large', 'The request headers are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request_timeout', 'The request took too long to arrive'];
    case 'HPE_INVALID_METHOD':
      return ['invalid_request', 'Unknown HTTP method'];
    default:
      return ['invalid_request', 'Malformed HTTP request'];
  }
}

/**
 * Answers what Fastify's router refuses before any route or hook runs (a path that does not decode, a path
 * parameter longer than maxParamLength) in the contract's format instead of Fastify's own body.
 */
export function handleFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const detail = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment is too long' : 'The URL is not valid';
  void sendError(reply, 'invalid_request', detail);
}
