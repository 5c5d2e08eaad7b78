import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection } from '../../src/jobs/index.ts';
import { OutboundPolicy } from '../../src/sources/index.ts';
import { startFakeMongo, type FakeMongo } from '../fakes/mongodb-wire.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { startDovecot, type DovecotServer } from '../support/dovecot.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

/** What a loopback service answers: none of it may reach the editor. */
const LOOPBACK_SECRET = 'superset-secret-body-7c1e';
const NO_NETWORK = { network: { allow_private: [] } };

const restApi = (baseUrl: string, path: string) => ({ type: 'rest_api', config: { base_url: baseUrl, auth_type: 'none', endpoints: [{ path }] }, secrets: {} });

describe('outbound requests of sources and alerts', () => {
  let quarry: TestQuarry;
  let superset: FakeApi;
  let redirector: FakeApi;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    superset = await startFakeApi((app) => { app.get('/api/v1/me', async () => [{ secret: LOOPBACK_SECRET }]); });
    redirector = await startFakeApi((app) => {
      app.get('/moved', async (_request, reply) => reply.redirect(`${superset.url}/api/v1/me`, 302));
    });
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      projectConfig: { ...NO_NETWORK, alerts: [{ name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed'] }] },
      env: { ALERT_WEBHOOK_URL: receiver.url },
    });
  });
  afterAll(async () => {
    await quarry.close();
    await Promise.all([superset.close(), redirector.close(), receiver.close()]);
  });

  const sourceTest = (baseUrl: string, path: string) => quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(baseUrl, path) });

  it.each([
    ['the service itself', () => quarry.url, '/api/health', '127.0.0.1: it is a loopback address (this machine)'],
    ['a Superset-like loopback port', () => superset.url, '/api/v1/me', '127.0.0.1: it is a loopback address (this machine)'],
    ['the metadata address', () => 'http://169.254.169.254', '/latest/meta-data/', '169.254.169.254: it is a cloud metadata address'],
    ['a name that resolves to loopback', () => superset.url.replace('127.0.0.1', 'localhost'), '/api/v1/me', 'localhost (127.0.0.1): it is a loopback address (this machine)'],
  ])('refuses a source test at %s, showing none of its body', async (_what, baseUrl, path, refused) => {
    const tested = await sourceTest(baseUrl(), path);
    expect(tested.status).toBe(200);
    expect(tested.json).toEqual({
      success: false,
      message: `Quarry does not connect to ${refused}; an admin can allow the host under network.allow_private in project.yml`,
    });
    expect(tested.text).not.toContain(LOOPBACK_SECRET);
  });

  const REFUSAL_ADVICE = 'an admin can allow the host under network.allow_private in project.yml';
  const driverTest = (type: string, config: Record<string, unknown>, secrets: Record<string, string>) =>
    quarry.request('POST', '/api/source-test', { as: 'editor', body: { type, config, secrets } });

  it.each([
    ['PostgreSQL', 'relational_db', { credentials_env: 'PG_URL' }, { PG_URL: 'postgresql://postgres@localhost:5432/test' }, 'localhost (127.0.0.1)'],
    ['MariaDB', 'relational_db', { credentials_env: 'MY_URL' }, { MY_URL: 'mysql://root@127.0.0.1:3306/test' }, '127.0.0.1'],
    ['MongoDB', 'document_db', { credentials_env: 'MONGO_URL' }, { MONGO_URL: 'mongodb://localhost:27017/test' }, 'localhost (127.0.0.1)'],
    ['NATS', 'event_stream', { servers: ['nats://127.0.0.1:4222'], stream: 'orders' }, {}, '127.0.0.1'],
    ['Kafka', 'event_stream', { servers: ['kafka://localhost:9092'], topics: ['orders'] }, {}, 'localhost (127.0.0.1)'],
    ['IMAP', 'inbox', { host: '127.0.0.1', port: 143, tls: false }, { INBOX_USERNAME: 'ann', INBOX_PASSWORD: 'mail-password' }, '127.0.0.1'],
  ])('refuses a source test of %s on this machine before its driver connects', async (_driver, type, config, secrets, refused) => {
    const tested = await driverTest(type, config, secrets);
    expect(tested.json).toEqual({ success: false, message: `Quarry does not connect to ${refused}: it is a loopback address (this machine); ${REFUSAL_ADVICE}` });
  });

  it('refuses a database URL that names no host, or whose options send the driver elsewhere or to a file of this machine', async () => {
    const postgresOptions = 'sslmode, sslnegotiation, sslcompression, sslsni, ssl_min_protocol_version, ssl_max_protocol_version, channel_binding, gssencmode, '
      + 'require_auth, connect_timeout, tcp_user_timeout, keepalives, keepalives_idle, keepalives_interval, keepalives_count, target_session_attrs, client_encoding, options';
    const refusedOption = (name: string, scheme: string, options: string): string => `The URL in PG_URL sets ${name}=, which Quarry does not hand the database's client: `
      + `the host belongs in the URL (${scheme}//user:password@host:port/database), and after ? only these options: ${options}`;
    const cases = [
      ['postgresql://postgres@db.example.com:5432/test?host=127.0.0.1', refusedOption('host', 'postgresql:', postgresOptions)],
      ['postgresql://postgres@db.example.com/test?sslmode=require&hostaddr=127.0.0.1', refusedOption('hostaddr', 'postgresql:', postgresOptions)],
      ['postgresql://postgres@db.example.com/test?service=local', refusedOption('service', 'postgresql:', postgresOptions)],
      ['postgresql://postgres@db.example.com/test?sslmode=verify-full&sslrootcert=%2Fetc%2Fshadow', refusedOption('sslrootcert', 'postgresql:', postgresOptions)],
      ['postgresql://postgres@db.example.com/test?sslkeylogfile=%2Ftmp%2Fkeys', refusedOption('sslkeylogfile', 'postgresql:', postgresOptions)],
      ['postgresql://postgres@db.example.com/test?passfile=%2Froot%2F.pgpass', refusedOption('passfile', 'postgresql:', postgresOptions)],
      ['mysql://root@db.example.com/test?socket=%2Frun%2Fmysqld%2Fmysqld.sock', refusedOption('socket', 'mysql:', 'ssl_mode, ssl_cipher, compress')],
      ['mysql://root@db.example.com/test?ssl_ca=%2Fetc%2Fpasswd', refusedOption('ssl_ca', 'mysql:', 'ssl_mode, ssl_cipher, compress')],
      ['mysql://root@db.example.com/test?compress=1%20host%3D127.0.0.1%20port%3D3306', "The URL in PG_URL gives compress= a value the database's client would misread: use letters, digits and . : + - _ only"],
      ['postgresql:///test', "The URL in PG_URL names no host: write the database's host in the URL (postgresql://user:password@host:port/database)"],
    ] as const;
    for (const [url, message] of cases) {
      const tested = await driverTest('relational_db', { credentials_env: 'PG_URL' }, { PG_URL: url });
      expect(tested.json).toEqual({ success: false, message });
    }
  });

  it('refuses a source test at a server that redirects to loopback', async () => {
    const tested = await sourceTest(redirector.url.replace('127.0.0.1', 'localhost'), '/moved');
    expect(tested.json.success).toBe(false);
    expect(tested.text).not.toContain(LOOPBACK_SECRET);
  });

  it('checks every connection a redirect leads to, not only the first', async () => {
    const policy = new OutboundPolicy(['localhost']);
    try {
      const followed = fetch(`${redirector.url.replace('127.0.0.1', 'localhost')}/moved`, { dispatcher: policy.dispatcher });
      await expect(followed).rejects.toMatchObject({ cause: { message: expect.stringContaining('Quarry does not connect to 127.0.0.1') } });
    } finally {
      await policy.close();
    }
  });

  it('refuses an alert webhook to loopback, naming neither its host nor its token', async () => {
    const sent = quarry.alerts.sendTest('team', quarry.url);
    await expect(sent).rejects.toThrow(
      'the webhook\'s address is refused: a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml',
    );
    await sent.catch((error: unknown) => { expect(String(error)).not.toContain(receiver.token); });
    expect(receiver.accepted).toEqual([]);
  });

  it('refuses a base_url that holds credentials, without repeating them, and writes nothing', async () => {
    const before = quarry.ctx.sources.length;
    for (const baseUrl of ['https://ops:pa55word-9f2@api.example.com', 'https://api.example.com/v1?api_key=k3y-literal-4d1a']) {
      const version = (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json?.version;
      const added = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'leaky', ...restApi(baseUrl, '/x'), version } });
      expect(added.status).toBe(400);
      expect(added.json.detail).toMatch(/rest_api\.base_url: holds (credentials before the host|a credential in the query parameter api_key)/);
      expect(added.text).not.toMatch(/pa55word-9f2|k3y-literal-4d1a/);
      const tested = await sourceTest(baseUrl, '/x');
      expect(tested.text).not.toMatch(/pa55word-9f2|k3y-literal-4d1a/);
    }
    expect(quarry.ctx.sources.length).toBe(before);
  });

  it('escapes formula cells of a CSV export and leaves numbers alone', async () => {
    const exported = await quarry.request('POST', '/api/query', {
      as: 'viewer', headers: { accept: 'text/csv' }, body: { sql: `SELECT '=HYPERLINK(''x'')' AS a, -5 AS n, '-5' AS t, '@x' AS "=b"` },
    });
    expect(exported.status).toBe(200);
    expect(exported.text).toBe(`a,n,t,'=b\n'=HYPERLINK('x'),-5,'-5,'@x\n`);
  });
});

describe('hosts project.yml allows', () => {
  let quarry: TestQuarry;
  let internal: FakeApi;
  beforeAll(async () => {
    internal = await startFakeApi((app) => { app.get('/v1/items', async () => [{ id: 1 }]); });
    quarry = await startQuarry({ projectConfig: { network: { allow_private: ['localhost'] } } });
  });
  afterAll(async () => {
    await quarry.close();
    await internal.close();
  });

  it('reaches a listed host, and only it', async () => {
    const allowed = await quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(internal.url.replace('127.0.0.1', 'localhost'), '/v1/items') });
    expect(allowed.json).toEqual({ success: true, message: 'Connected and read the first records' });
    const other = await quarry.request('POST', '/api/source-test', { as: 'editor', body: restApi(internal.url, '/v1/items') });
    expect(other.json.success).toBe(false);
  });
});

/** Names under .test resolve nowhere (RFC 2606) but in this resolver, which sends them to this machine. */
const PINNED_SUFFIX = '.pinned.test';

describe('database, broker and mail drivers connect to the address the policy checked', () => {
  const policy = new OutboundPolicy(['127.0.0.1'], {
    resolve: async (hostname) => {
      if (hostname.endsWith(PINNED_SUFFIX)) return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    },
  });
  const suffix = randomBytes(4).toString('hex');
  let quarry: TestQuarry;
  let mongo: FakeMongo;
  let imap: DovecotServer;
  /** Stands in for a Kafka broker: it counts the connections it gets and closes them. */
  let broker: Server;
  let brokerConnections = 0;
  let brokerPort: number;

  beforeAll(async () => {
    mongo = await startFakeMongo();
    imap = await startDovecot({ ann: 'mail-password' });
    broker = createServer((socket) => { brokerConnections += 1; socket.destroy(); }).listen(0, '127.0.0.1');
    await once(broker, 'listening');
    brokerPort = (broker.address() as AddressInfo).port;
    const mongoUrl = new URL(mongo.url(`pinned_${suffix}`));
    mongoUrl.hostname = `mongo${PINNED_SUFFIX}`;
    quarry = await startQuarry({
      env: {
        PG_URL: `postgresql://postgres@db${PINNED_SUFFIX}:5432/test`, MY_URL: `mysql://root@db${PINNED_SUFFIX}:3306/test`,
        MONGO_URL: mongoUrl.href, INBOX_USERNAME: 'ann', INBOX_PASSWORD: 'mail-password',
      },
      sourcesYaml: `sources:
  - { name: pg, type: relational_db, generic_config: { credentials_env: PG_URL, schema: pinned_${suffix} } }
  - { name: maria, type: relational_db, generic_config: { credentials_env: MY_URL, schema: pinned_${suffix} } }
  - { name: mongo, type: document_db, generic_config: { credentials_env: MONGO_URL } }
  - { name: nats, type: event_stream, generic_config: { servers: ["nats://nats${PINNED_SUFFIX}:4222"], stream: pinned_${suffix} } }
  - { name: kafka, type: event_stream, generic_config: { servers: ["kafka://kafka${PINNED_SUFFIX}:${String(brokerPort)}"], topics: [orders] } }
  - { name: mail, type: inbox, generic_config: { host: mail${PINNED_SUFFIX}, port: ${String(imap.port)}, tls: false } }
`,
    });
  });
  afterAll(async () => {
    await quarry.close();
    await Promise.all([mongo.close(), imap.close()]);
    broker.close();
    await once(broker, 'close');
  });

  /** The connection test of a source, its connections going through `outbound`. */
  const probe = (name: string, outbound: OutboundPolicy): Promise<string> => {
    const source = quarry.ctx.sources.find((candidate) => candidate.name === name);
    if (source === undefined) throw new Error(`no source ${name}`);
    const { paths, env, sourceTokens, dataRoots, now } = quarry.ctx;
    return testConnection({ source, paths, env, sourceTokens, outbound, dataRoots, now, signal: AbortSignal.timeout(60_000), spreadsheetSeconds: 60 });
  };

  it.each(['pg', 'maria', 'mongo', 'mail'])('%s reaches its server by a name only the policy resolves', async (name) => {
    expect(await probe(name, policy)).toBe('Connected; the source has no records yet');
  });

  it('NATS reaches its server by a name only the policy resolves (which then has no such stream)', async () => {
    await expect(probe('nats', policy)).rejects.toThrow(`No JetStream stream pinned_${suffix} on the NATS server at nats${PINNED_SUFFIX}:4222`);
  });

  it('Kafka reaches its broker through the policy\'s socket factory', async () => {
    const before = brokerConnections;
    await expect(probe('kafka', policy)).rejects.toThrow(`Could not connect to Kafka at kafka${PINNED_SUFFIX}:${String(brokerPort)}: `);
    expect(brokerConnections).toBeGreaterThan(before);
  });

  it('fails each with one clear line where the names do not resolve, which is what a driver resolving them again would meet', async () => {
    const messages = await Promise.all(['pg', 'maria', 'mongo', 'nats', 'kafka', 'mail'].map((name) => probe(name, quarry.ctx.outbound).then(
      (account) => `connected: ${account}`, (error: unknown) => (error as Error).message,
    )));
    expect(messages).toEqual([
      `Could not connect to the database at db${PINNED_SUFFIX}:5432: the host name does not resolve`,
      `Could not connect to the database at db${PINNED_SUFFIX}:3306: the host name does not resolve`,
      `Could not connect to MongoDB at mongo${PINNED_SUFFIX}:${String(mongo.port)}: the host name does not resolve`,
      `Could not connect to NATS at nats${PINNED_SUFFIX}:4222: the host name does not resolve`,
      `Could not connect to Kafka at kafka${PINNED_SUFFIX}:${String(brokerPort)}: the host name does not resolve`,
      `Could not resolve the host name mail${PINNED_SUFFIX} (DNS lookup failed)`,
    ]);
  });
});

describe('a MongoDB server that names replica-set members on this machine', () => {
  const database = `members_${randomBytes(4).toString('hex')}`;
  const refusal = 'Quarry does not connect to 127.0.0.1: it is a loopback address (this machine); an admin can allow the host under network.allow_private in project.yml';
  /** A member on 127.0.0.1, which project.yml does not allow (only the name localhost is): it counts the connections it gets. */
  let loopbackMember: FakeMongo;
  /** The editor's server, reached as localhost: a primary that names the loopback member by its IP address. */
  let primary: FakeMongo;
  /** A secondary, reached as localhost, whose only primary is the loopback member. */
  let secondary: FakeMongo;
  let quarry: TestQuarry;

  beforeAll(async () => {
    loopbackMember = await startFakeMongo();
    const member = `127.0.0.1:${String(loopbackMember.port)}`;
    primary = await startFakeMongo({ replicaSet: { name: 'rs0', hosts: (port) => [`localhost:${String(port)}`, member] } });
    secondary = await startFakeMongo({ replicaSet: { name: 'rs1', hosts: (port) => [`localhost:${String(port)}`, member], primary: () => member } });
    primary.collection(database, 'orders').push({ _id: 'o-1', total: 5 }, { _id: 'o-2', total: 7 });
    quarry = await startQuarry({
      projectConfig: { network: { allow_private: ['localhost'] } },
      env: {
        PRIMARY_URL: `mongodb://localhost:${String(primary.port)}/${database}`,
        SECONDARY_URL: `mongodb://localhost:${String(secondary.port)}/${database}?serverSelectionTimeoutMS=1500`,
      },
      sourcesYaml: `sources:
  - { name: members, type: document_db, generic_config: { credentials_env: PRIMARY_URL } }
  - { name: stranded, type: document_db, generic_config: { credentials_env: SECONDARY_URL } }
`,
    });
  });
  afterAll(async () => {
    await quarry.close();
    await Promise.all([loopbackMember.close(), primary.close(), secondary.close()]);
  });

  it('syncs from the allowed primary, and the member it names at a loopback address gets no connection', async () => {
    expect(await syncAndWait(quarry, 'members')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT _id, total FROM raw_members.orders ORDER BY _id')).toEqual([{ _id: 'o-1', total: 5 }, { _id: 'o-2', total: 7 }]);
    expect(loopbackMember.connections).toBe(0);
    // Not for want of trying (the driver's monitor connects as soon as the primary names the member): the proxy refused it.
    expect(await logMessages(quarry, 'members', 'WARNING')).toEqual([`A server of localhost:${String(primary.port)} named a host Quarry did not connect to: ${refusal}`]);
  });

  it('fails with the refusal when the only primary a server names is on this machine', async () => {
    const end = await syncAndWait(quarry, 'stranded');
    expect(loopbackMember.connections).toBe(0);
    expect(end.type === 'sync_failed' ? end.error : '').toBe(`Could not connect to MongoDB at localhost:${String(secondary.port)}: ${refusal}`);
  });

  it('refuses a URL that names a proxy of its own, a file of this machine, or signs in as this machine, before connecting', async () => {
    const before = primary.connections;
    const cases = [
      ['?proxyHost=127.0.0.1&proxyPort=1080', 'sets proxyHost= among its parameters: Quarry reaches MongoDB through its own proxy, which checks every address; remove it'],
      ['?authMechanism=oidc&authMechanismProperties=ENVIRONMENT:azure,TOKEN_RESOURCE:quarry', 'signs in with MONGODB-OIDC, which uses this machine\'s own identity; give a user and password (or an X.509 certificate) instead'],
      ['?tls=true&tlsCertificateKeyFile=%2Fetc%2Fssl%2Fprivate%2Fserver.pem', 'sets tlsCertificateKeyFile=, which Quarry does not hand the driver: a source reads no file of this machine; remove it'],
      ['?tls=true&tlsCAFile=%2Fetc%2Fshadow', 'sets tlsCAFile=, which Quarry does not hand the driver: a source reads no file of this machine; remove it'],
    ] as const;
    for (const [parameters, problem] of cases) {
      const tested = await quarry.request('POST', '/api/source-test', {
        as: 'editor', body: { type: 'document_db', config: { credentials_env: 'MONGO_URL' }, secrets: { MONGO_URL: `mongodb://localhost:${String(primary.port)}/${database}${parameters}` } },
      });
      expect(tested.json).toEqual({ success: false, message: `The URL in MONGO_URL ${problem}` });
    }
    expect(primary.connections).toBe(before);
  });
});
