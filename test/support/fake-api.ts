import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** A request as the fake vendor saw it, for asserting credentials and parameters. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  /** `performance.now()` when the request arrived. */
  readonly receivedAt: number;
  /** The status of the injected fault that answered it, if one did. */
  answeredWithFault?: number;
}

/** A failure the fake answers with once, instead of the real response, at the nth request to a matching path. */
export interface Fault {
  readonly status: number;
  /**
   * 1-based, counted over requests whose path starts with `pathPrefix` (every request when absent); a request
   * another fault answered is not counted.
   */
  readonly atRequest: number;
  readonly pathPrefix?: string;
  readonly retryAfterSeconds?: number;
}

export interface FakeApi {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly requests: SeenRequest[];
  /** Answers with these failures once each, mid-pagination, as real APIs do under load. */
  inject(...faults: Fault[]): void;
  close(): Promise<void>;
}

/**
 * A local stand-in for a vendor's API on a random loopback port: `routes` registers the vendor's
 * endpoints on a Fastify app; every request is recorded and faults can be injected.
 */
export async function startFakeApi(routes: (app: FastifyInstance) => void): Promise<FakeApi> {
  const app = Fastify({ logger: false });
  const requests: SeenRequest[] = [];
  const pending: Fault[] = [];
  const counts = new Map<Fault, number>();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://fake');
    const seenRequest: SeenRequest = { method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers, body: request.body, receivedAt: performance.now() };
    requests.push(seenRequest);
    for (const fault of pending) {
      if (fault.pathPrefix !== undefined && !url.pathname.startsWith(fault.pathPrefix)) continue;
      const seen = (counts.get(fault) ?? 0) + 1;
      counts.set(fault, seen);
      if (seen !== fault.atRequest) continue;
      pending.splice(pending.indexOf(fault), 1);
      seenRequest.answeredWithFault = fault.status;
      if (fault.retryAfterSeconds !== undefined) void reply.header('retry-after', String(fault.retryAfterSeconds));
      return reply.code(fault.status).send({ error: { message: `injected ${String(fault.status)}` } });
    }
    return undefined;
  });
  routes(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${String(address.port)}`,
    app,
    requests,
    inject(...faults) {
      pending.push(...faults);
    },
    close: () => app.close(),
  };
}

/** The bearer token of a request, or undefined. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined;
}

/** The user and password of an HTTP Basic request, or undefined. */
export function basicOf(request: FastifyRequest): { user: string; password: string } | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ') !== true) return undefined;
  const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** `count` records made by `make`, numbered from 1: the fakes' data. */
export function records<T>(count: number, make: (n: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index + 1));
}
