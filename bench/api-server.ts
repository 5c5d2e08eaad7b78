// The servers the API benchmark loads, in their own process so the load generator does not share their event
// loop: a Quarry with a signed-in admin and an API key, and a bare Fastify route answering the same status JSON.
// Prints one JSON line with their addresses and credentials, then serves until stdin closes.
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { startBenchServer } from './bench-server.ts';

export interface ApiServers {
  readonly quarry: string;
  readonly bare: string;
  readonly cookie: string;
  readonly key: string;
}

const quarry = await startBenchServer();
const sample = await fetch(`${quarry.base}/api/status`, { headers: { cookie: quarry.cookie } });
const statusBody: unknown = await sample.json();
const bare = Fastify();
bare.get('/api/status', async () => statusBody);
await bare.listen({ host: '127.0.0.1', port: 0 });
const bareAddress = bare.server.address();
if (bareAddress === null || typeof bareAddress === 'string') throw new Error('the bare server has no TCP address');

const servers: ApiServers = { quarry: quarry.base, bare: `http://127.0.0.1:${String(bareAddress.port)}`, cookie: quarry.cookie, key: quarry.key };
process.stdout.write(`${JSON.stringify(servers)}\n`);

// Each line on stdin asks for the CPU time this process has used so far (one JSON line back): the load generator's
// share of a busy machine then does not blur what a request costs the server. The end of stdin stops it.
const commands = createInterface({ input: process.stdin });
commands.on('line', () => { process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`); });
commands.on('close', () => {
  void Promise.all([bare.close(), quarry.close()]).then(() => { process.exit(0); });
});
