import { AuthMechanism, MongoClient, MongoNetworkError, MongoServerSelectionError, type Db, type Document, type Filter, type Sort } from 'mongodb';
import { z } from 'zod';
import { firstLineOf } from '../../errors.ts';
import type { Connector, ExtractContext, RecordSink } from '../connector.ts';
import { plainValue, restoreCursor, saveCursor } from '../documents/index.ts';
import { OutboundRefusedError, OutboundSocksProxy, hostOfServer, type OutboundPolicy } from '../outbound/index.ts';
import { requireEnv, valueAt } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, NonEmptyString, StringList, genericConfig, defineSourceType, sectionOf } from '../type-definition/index.ts';

export const DocumentDbConfig = genericConfig({
  /** Names the variable holding a `mongodb://` or `mongodb+srv://` connection URL. */
  credentials_env: EnvVarName.default('DOCUMENT_DB_URL'),
  /** The URL's database when absent. */
  database: NonEmptyString.optional(),
  /** Absent means every collection of the database. */
  collections: StringList.optional(),
  /** Collection → cursor field (a date, number, string or ObjectId; dotted paths reach into documents), for merge loads on `_id`. */
  incremental: z.record(NonEmptyString, NonEmptyString).optional(),
  /** Documents per cursor batch from the server, and per write to the staging area. */
  batch_size: z.int().positive().max(100_000).default(1_000),
}).superRefine((config, context) => {
  if (config.collections === undefined || config.incremental === undefined) return;
  for (const name of Object.keys(config.incremental)) {
    if (!config.collections.includes(name)) {
      context.addIssue({ code: 'custom', path: ['incremental', name], input: name, message: `${name} is not one of the collections listed (${config.collections.join(', ')})` });
    }
  }
});
export type DocumentDbConfig = z.output<typeof DocumentDbConfig>;

/** A server that is down should fail a sync in seconds, not after the driver's 30 s default; a URL may set its own. */
const SERVER_SELECTION_TIMEOUT_MS = 10_000;
const URL_PATTERN = /^mongodb(?:\+srv)?:\/\/(?:(?<userInfo>[^@/]*)@)?(?<hosts>[^/?]+)(?:\/(?<database>[^?]*))?/i;

/**
 * `document_db`: the collections of a MongoDB database, one table each. Documents stream through a
 * cursor into the staging area as plain JSON (nested documents become STRUCT, arrays LIST); a
 * collection with a cursor field in `incremental` loads only documents past the last cursor value,
 * merged on `_id`; the others are replaced whole.
 */
const documentDbConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as DocumentDbConfig;
    const url = requireEnv(context.env, config.credentials_env, 'the MongoDB connection URL (mongodb://user:password@host:27017/database)');
    const parts = URL_PATTERN.exec(url)?.groups;
    if (parts?.hosts === undefined) throw new SyncFailedError(`The environment variable ${config.credentials_env} does not hold a mongodb:// or mongodb+srv:// URL`);
    const where = parts.hosts;
    const password = decodeURIComponent(parts.userInfo?.split(':').slice(1).join(':') ?? '');
    const database = config.database ?? decodeURIComponent(parts.database ?? '');
    if (database === '') throw new SyncFailedError(`Name the database: set generic_config.database, or end the URL in ${config.credentials_env} with /<database>`);
    refuseUnlistedOptions(url, config.credentials_env);
    const proxy = await OutboundSocksProxy.open(context.outbound);
    try {
      const client = new MongoClient(url, {
        appName: 'quarry',
        // Every connection goes through the proxy, which connects where the policy allows: the URL's hosts, the members
        // a replica set names (an IP address too, which a driver's `lookup` would never see), an SRV record's hosts.
        proxyHost: proxy.host, proxyPort: proxy.port, proxyUsername: proxy.username, proxyPassword: proxy.password,
        ...(/[?&]serverSelectionTimeoutMS=/i.test(url) ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS }),
      });
      const cause = (error: unknown): string => mongoCause(failureBehind(error, proxy) ?? error, password);
      try {
        refuseMachineSignIn(client, config.credentials_env);
        await checkHosts(url, where, context.outbound).then(() => client.connect()).catch((error: unknown) => {
          if (error instanceof SyncFailedError) throw error;
          throw new SyncFailedError(`Could not connect to MongoDB at ${where}: ${cause(error)}`);
        });
        await exportCollections(client.db(database), config, context, sink, (error) => `${where}/${database}: ${cause(error)}`);
        for (const refusal of new Set(proxy.failures.filter((failure) => failure instanceof OutboundRefusedError).map((failure) => failure.message))) {
          context.log('WARNING', `A server of ${where} named a host Quarry did not connect to: ${refusal}`);
        }
      } finally {
        await client.close().catch(() => undefined);
      }
    } finally {
      await proxy.close();
    }
  },
};

/**
 * Checks the hosts the URL names before the driver tries them, so a refused one fails at once with the refusal rather
 * than after server selection gives up (the proxy would refuse it all the same); an SRV name is only a record to look
 * up, whose hosts the proxy checks.
 */
async function checkHosts(url: string, hosts: string, outbound: OutboundPolicy): Promise<void> {
  const servers = /^mongodb\+srv:/i.test(url) ? [] : hosts.split(',');
  await Promise.all(servers.map((server) => outbound.resolveReachable(hostOfServer(server))));
}

/**
 * The URL options Quarry hands the driver (compared in lower case): how to talk to the servers, never a file of this
 * machine (`tlsCAFile`, `tlsCertificateKeyFile`: the driver would read it, and send a certificate's part) nor a proxy.
 */
const URL_OPTIONS: ReadonlySet<string> = new Set([
  'authsource', 'authmechanism', 'authmechanismproperties', 'replicaset', 'tls', 'ssl', 'tlsallowinvalidcertificates', 'tlsallowinvalidhostnames', 'tlsinsecure',
  'readpreference', 'readpreferencetags', 'maxstalenessseconds', 'readconcernlevel', 'retryreads', 'retrywrites', 'w', 'wtimeoutms', 'journal',
  'directconnection', 'loadbalanced', 'srvmaxhosts', 'srvservicename', 'appname', 'compressors', 'zlibcompressionlevel',
  'connecttimeoutms', 'sockettimeoutms', 'serverselectiontimeoutms', 'heartbeatfrequencyms', 'localthresholdms', 'timeoutms',
  'maxpoolsize', 'minpoolsize', 'maxidletimems', 'maxconnecting', 'waitqueuetimeoutms',
]);

/** Refuses a URL option Quarry does not hand the driver; a proxy of its own is told apart, as Quarry's always wins. */
function refuseUnlistedOptions(url: string, variable: string): void {
  const refused = [...new URLSearchParams(url.split('?')[1] ?? '').keys()].find((key) => !URL_OPTIONS.has(key.toLowerCase()));
  if (refused === undefined) return;
  if (refused.toLowerCase().startsWith('proxy')) {
    throw new SyncFailedError(`The URL in ${variable} sets ${refused}= among its parameters: Quarry reaches MongoDB through its own proxy, which checks every address; remove it`);
  }
  throw new SyncFailedError(`The URL in ${variable} sets ${refused}=, which Quarry does not hand the driver: a source reads no file of this machine; remove it`);
}

/**
 * Refuses the sign-ins that use this machine's identity rather than the source's credentials: they fetch a token from
 * the cloud's metadata address (past the proxy) or read one from the machine's files, and hand it to the server. The
 * driver's reading of the URL is checked, since it matches `authMechanism` loosely (`oidc` means MONGODB-OIDC).
 */
function refuseMachineSignIn(client: MongoClient, variable: string): void {
  const mechanism = client.options.credentials?.mechanism;
  if (mechanism !== undefined && MACHINE_SIGN_INS.includes(mechanism)) {
    throw new SyncFailedError(`The URL in ${variable} signs in with ${mechanism}, which uses this machine's own identity; give a user and password (or an X.509 certificate) instead`);
  }
}

const MACHINE_SIGN_INS: readonly string[] = [AuthMechanism.MONGODB_OIDC, AuthMechanism.MONGODB_AWS];

/** The proxy's failure behind a driver's network error, which names only the SOCKS reply: a refusal first, else the latest. */
function failureBehind(error: unknown, proxy: OutboundSocksProxy): Error | undefined {
  if (!(error instanceof MongoNetworkError || error instanceof MongoServerSelectionError)) return undefined;
  return proxy.failures.find((failure) => failure instanceof OutboundRefusedError) ?? proxy.failures.at(-1);
}

async function exportCollections(
  db: Db, config: DocumentDbConfig, context: ExtractContext, sink: RecordSink, describe: (error: unknown) => string,
): Promise<void> {
  const available = await db.listCollections({}, { nameOnly: true }).toArray().then(
    (collections) => collections.map((collection) => collection.name).filter((name) => !name.startsWith('system.')).sort(),
    (error: unknown) => { throw new SyncFailedError(`Could not list the collections of ${describe(error)}`); },
  );
  const wanted = config.collections ?? available;
  const missing = wanted.filter((name) => !available.includes(name));
  if (missing.length > 0) {
    throw new SyncFailedError(`No collection ${missing.join(', ')} in the database ${db.databaseName} (it has ${available.length === 0 ? 'no collections' : available.join(', ')})`);
  }
  for (const name of wanted) {
    context.signal.throwIfAborted();
    const cursorField = config.incremental?.[name];
    const after = cursorField === undefined || context.fullRefresh ? undefined : restoreCursor(context.state.get(name));
    const read = await exportCollection(db, name, { cursorField, after, batchSize: config.batch_size, sink, signal: context.signal }).catch((error: unknown) => {
      if (error instanceof SyncFailedError) throw error;
      throw new SyncFailedError(`Could not read the collection ${name} of ${describe(error)}`);
    });
    if (read.cursor !== undefined) context.state.set(name, read.cursor);
    context.log('INFO', after === undefined
      ? `Exported ${String(read.documents)} documents of ${name}`
      : `Exported ${String(read.documents)} documents of ${name} with ${cursorField ?? ''} after ${String(plainValue(after))}`);
  }
}

async function exportCollection(
  db: Db, name: string,
  options: { cursorField: string | undefined; after: unknown; batchSize: number; sink: RecordSink; signal: AbortSignal },
): Promise<{ documents: number; cursor: unknown }> {
  const { cursorField, after, batchSize } = options;
  const writer = options.sink.table(cursorField === undefined ? { name, disposition: 'replace' } : { name, disposition: 'merge', primaryKey: ['_id'] });
  const filter: Filter<Document> = cursorField !== undefined && after !== undefined ? { [cursorField]: { $gt: after } } : {};
  const sort: Sort | undefined = cursorField === undefined ? undefined : { [cursorField]: 1 };
  const cursor = db.collection(name).find(filter, { sort, batchSize });
  const batch: Record<string, unknown>[] = [];
  let documents = 0;
  let highest: unknown;
  try {
    for await (const document of cursor) {
      options.signal.throwIfAborted();
      batch.push(plainValue(document) as Record<string, unknown>);
      documents += 1;
      if (cursorField !== undefined) highest = valueAt(document, cursorField) ?? highest;
      if (batch.length >= batchSize) await writer.write(batch.splice(0));
    }
    await writer.write(batch.splice(0));
  } finally {
    await cursor.close();
  }
  if (cursorField === undefined || highest === undefined) return { documents, cursor: undefined };
  const saved = saveCursor(highest);
  if (saved === undefined) {
    throw new SyncFailedError(`The cursor field ${cursorField} of ${name} holds ${describeKind(highest)}; use a date, number, string or ObjectId field`);
  }
  return { documents, cursor: saved };
}

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return value !== null && typeof value === 'object' ? `a ${value.constructor.name}` : `a ${typeof value}`;
}

/** The driver's error in one line, with the password masked should it have been echoed. */
function mongoCause(error: unknown, password: string): string {
  const message = firstLineOf(error);
  const codeName = (error as { codeName?: unknown }).codeName;
  let cause = message;
  if (codeName === 'AuthenticationFailed' || /authentication failed/i.test(message)) cause = 'the server refused the credentials (authentication failed)';
  else if (message.includes('ECONNREFUSED')) cause = 'connection refused';
  else if (message.includes('ENOTFOUND') || message.includes('EAI_AGAIN')) cause = 'the host name does not resolve';
  return password === '' ? cause : cause.replaceAll(password, '***');
}

export const documentDbType = defineSourceType({
  key: 'document_db', category: 'Databases', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: DocumentDbConfig,
  connector: documentDbConnector,
});
