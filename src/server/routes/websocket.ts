import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { CsrfError } from '../../auth/index.ts';
import { UnauthenticatedError } from '../../errors.ts';
import { SESSION_COOKIE, isSameOrigin, requireActor } from '../plugins/index.ts';
import type { SocketCredential, WebSocketHub } from '../websocket-hub.ts';

/** `WS /ws`: authenticated like /api before the upgrade (401 otherwise), then one JSON message per event. */
export const websocketRoutes: FastifyPluginCallback<{ hub: WebSocketHub; publicUrl: string | undefined }> = (app, { hub, publicUrl }, done) => {
  // Browsers send cookies with a cross-site WebSocket handshake in some cases; the Origin must be ours.
  const sameOriginOnly = async (request: FastifyRequest): Promise<void> => {
    const origin = request.headers.origin;
    if (origin !== undefined && !isSameOrigin(request, origin, publicUrl)) throw new CsrfError();
  };
  app.get('/ws', { websocket: true, schema: { hide: true }, preHandler: sameOriginOnly }, (socket, request) => {
    const actor = requireActor(request);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const token = request.cookies[SESSION_COOKIE];
    let credential: SocketCredential;
    if (bearer !== undefined) credential = { kind: 'api_key', key: bearer };
    else if (token !== undefined && actor.sessionId !== null) credential = { kind: 'session', token, sessionId: actor.sessionId };
    else throw new UnauthenticatedError();
    hub.add(socket, credential);
  });
  done();
};
