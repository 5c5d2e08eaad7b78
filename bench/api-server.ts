// The servers the API benchmark loads, in their own process so the load generator does not share their event
// loop: a Quarry with a signed-in admin and an API key, a bare Fastify route answering the same status JSON, and
// for reference that route with only the least a Quarry route must do per request: Quarry's session check and
// security headers.
// Prints one JSON line with their addresses and credentials, then serves until stdin closes.
import { createInterface } from 'node:readline';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { installSecurityHeaders, SESSION_COOKIE } from '../src/server/plugins/index.ts';
import { startBenchServer } from './bench-server.ts';

export interface ApiServers {
  readonly quarry: string;
  readonly bare: string;
  readonly least: string;
  readonly cookie: string;
  readonly key: string;
}

const quarry = await startBenchServer();
const sample = await fetch(`${quarry.base}/api/status`, { headers: { cookie: quarry.cookie } });
const statusBody: unknown = await sample.json();
const bare = Fastify();
bare.get('/api/status', async () => statusBody);

// The session's token hashed and looked up (its cache, the revocation check at once), and the security headers.
const least = Fastify();
least.decorateRequest('actor', null);
await least.register(cookie);
installSecurityHeaders(least);
least.get('/api/status', async (request, reply) => {
  const token = request.cookies[SESSION_COOKIE];
  const resolved = token === undefined ? undefined : await quarry.ctx.auth.actorFromSessionToken(token);
  if (resolved === undefined) return reply.code(401).send({ error: 'unauthenticated' });
  request.actor = resolved.actor;
  return statusBody;
});

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('a bench server has no TCP address');
  return `http://127.0.0.1:${String(address.port)}`;
}

const servers: ApiServers = { quarry: quarry.base, bare: await listen(bare), least: await listen(least), cookie: quarry.cookie, key: quarry.key };
process.stdout.write(`${JSON.stringify(servers)}\n`);

// Each line on stdin asks for the CPU time this process has used so far (one JSON line back): the load generator's
// share of a busy machine then does not blur what a request costs the server. The end of stdin stops it.
const commands = createInterface({ input: process.stdin });
commands.on('line', () => { process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`); });
commands.on('close', () => {
  void Promise.all([bare.close(), least.close(), quarry.close()]).then(() => { process.exit(0); });
});
