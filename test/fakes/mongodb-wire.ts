import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { Binary, Decimal128, Long, ObjectId, deserialize, serialize, type Document } from 'bson';

/**
 * A MongoDB server small enough to read but faithful on the wire, so the official driver runs end to
 * end: OP_MSG (and OP_QUERY for legacy handshakes) carrying BSON; hello/isMaster, buildInfo, ping,
 * SCRAM-SHA-256 (saslStart/saslContinue), listCollections, find with filter/sort/batchSize, getMore,
 * killCursors and endSessions. No MongoDB server can be installed on this project's machines.
 */
export interface FakeMongo {
  readonly port: number;
  /** A connection URL for this server; credentials are those of `users` (or any, to test a refusal). */
  url(database: string, credentials?: { user: string; password: string }): string;
  collection(database: string, name: string): Document[];
  /** Every command name received, in order (handshakes included). */
  readonly commands: string[];
  /** How many connections it has accepted. */
  readonly connections: number;
  close(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const SCRAM_ITERATIONS = 4096;
const DEFAULT_BATCH = 101;

interface Conversation { user: string; clientFirstBare: string; serverFirst: string; nonce: string; salt: Buffer }
interface ConnectionState { authenticated: boolean; conversation?: Conversation }
interface OpenCursor { namespace: string; remaining: Document[] }

/**
 * A replica set this server says it belongs to, as its hello answers: `hosts` are the members, as host:port, given
 * this server's port; the first is this server, the primary unless `primary` names another member.
 */
export interface FakeReplicaSet {
  readonly name: string;
  readonly hosts: (port: number) => readonly string[];
  readonly primary?: (port: number) => string;
}

export async function startFakeMongo(options: { users?: Readonly<Record<string, string>>; replicaSet?: FakeReplicaSet } = {}): Promise<FakeMongo> {
  const databases = new Map<string, Map<string, Document[]>>();
  const cursors = new Map<string, OpenCursor>();
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let nextCursorId = 1;

  const collection = (database: string, name: string): Document[] => {
    let collections = databases.get(database);
    if (collections === undefined) databases.set(database, collections = new Map());
    let documents = collections.get(name);
    if (documents === undefined) collections.set(name, documents = []);
    return documents;
  };

  const openCursor = (namespace: string, documents: Document[], batchSize: number) => {
    const batch = documents.slice(0, batchSize);
    const remaining = documents.slice(batchSize);
    if (remaining.length === 0) return { id: Long.fromNumber(0), batch };
    const id = nextCursorId++;
    cursors.set(String(id), { namespace, remaining });
    return { id: Long.fromNumber(id), batch };
  };

  const membership = (): Document => {
    const replicaSet = options.replicaSet;
    if (replicaSet === undefined) return { ismaster: true, isWritablePrimary: true };
    const hosts = replicaSet.hosts(port);
    const me = hosts[0];
    const primary = replicaSet.primary?.(port) ?? me;
    const isPrimary = primary === me;
    return { ismaster: isPrimary, isWritablePrimary: isPrimary, secondary: !isPrimary, setName: replicaSet.name, setVersion: 1, hosts, me, primary };
  };

  const answer = (command: Document, state: ConnectionState, connectionId: number): Document => {
    const name = Object.keys(command)[0] ?? '';
    commands.push(name);
    const database = String(command.$db ?? 'admin');
    switch (name.toLowerCase()) {
      case 'hello': case 'ismaster':
        return {
          helloOk: true, ...membership(), maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000,
          maxWriteBatchSize: 100_000, localTime: new Date(), logicalSessionTimeoutMinutes: 30, connectionId, minWireVersion: 0, maxWireVersion: 21,
          readOnly: false, ...(command.saslSupportedMechs === undefined ? {} : { saslSupportedMechs: ['SCRAM-SHA-256'] }), ok: 1,
        };
      case 'buildinfo': return { version: '7.0.0', versionArray: [7, 0, 0, 0], ok: 1 };
      case 'ping': case 'endsessions': return { ok: 1 };
      case 'saslstart': return saslStart(command, state);
      case 'saslcontinue': return saslContinue(command, state, options.users ?? {});
      default: break;
    }
    if (options.users !== undefined && !state.authenticated) {
      return { ok: 0, errmsg: `command ${name} requires authentication`, code: 13, codeName: 'Unauthorized' };
    }
    switch (name) {
      case 'listCollections': {
        const wanted = (command.filter as Document | undefined)?.name as unknown;
        const names = [...(databases.get(database)?.keys() ?? [])].filter((collectionName) => wanted === undefined || collectionName === wanted);
        const infos = names.map((collectionName) => ({ name: collectionName, type: 'collection', options: {}, info: { readOnly: false } }));
        const { id, batch } = openCursor(`${database}.$cmd.listCollections`, infos, DEFAULT_BATCH);
        return { cursor: { id, ns: `${database}.$cmd.listCollections`, firstBatch: batch }, ok: 1 };
      }
      case 'find': {
        const namespace = `${database}.${String(command.find)}`;
        const found = collection(database, String(command.find))
          .filter((document) => matches(document, (command.filter ?? {}) as Document))
          .sort(sortOrder((command.sort ?? {}) as Document));
        const limited = typeof command.limit === 'number' && command.limit > 0 ? found.slice(0, command.limit) : found;
        const { id, batch } = openCursor(namespace, limited, numberOf(command.batchSize) ?? DEFAULT_BATCH);
        return { cursor: { id, ns: namespace, firstBatch: batch }, ok: 1 };
      }
      case 'getMore': {
        const id = String(command.getMore);
        const cursor = cursors.get(id);
        if (cursor === undefined) return { ok: 0, errmsg: `cursor id ${id} not found`, code: 43, codeName: 'CursorNotFound' };
        const batchSize = numberOf(command.batchSize) ?? cursor.remaining.length;
        const batch = cursor.remaining.splice(0, batchSize);
        if (cursor.remaining.length === 0) cursors.delete(id);
        return { cursor: { id: Long.fromString(cursors.has(id) ? id : '0'), ns: cursor.namespace, nextBatch: batch }, ok: 1 };
      }
      case 'killCursors': {
        const ids = ((command.cursors ?? []) as unknown[]).map(String);
        for (const id of ids) cursors.delete(id);
        return { cursorsKilled: ids.map((id) => Long.fromString(id)), cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [], ok: 1 };
      }
      default:
        return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' };
    }
  };

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const state: ConnectionState = { authenticated: options.users === undefined };
    const connectionId = ++connections;
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        const length = buffered.readInt32LE(0);
        const message = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        const requestId = message.readInt32LE(4);
        const opCode = message.readInt32LE(12);
        if (opCode === OP_MSG) socket.write(opMsg(requestId, answer(readOpMsg(message), state, connectionId)));
        else if (opCode === OP_QUERY) socket.write(opReply(requestId, answer(readOpQuery(message), state, connectionId)));
        else socket.destroy();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const port = address.port;

  return {
    port,
    commands,
    get connections() { return connections; },
    collection,
    url: (database, credentials) => {
      const userInfo = credentials === undefined ? '' : `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@`;
      return `mongodb://${userInfo}127.0.0.1:${String(port)}/${database}?directConnection=true&serverSelectionTimeoutMS=2000`;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

function readCString(buffer: Buffer, at: number): { text: string; end: number } {
  const end = buffer.indexOf(0, at);
  return { text: buffer.toString('utf8', at, end), end: end + 1 };
}

function readOpMsg(message: Buffer): Document {
  const flags = message.readUInt32LE(16);
  const end = message.length - ((flags & 1) === 1 ? 4 : 0); // checksumPresent
  let at = 20;
  let body: Document = {};
  const sequences: Record<string, Document[]> = {};
  while (at < end) {
    const kind = message.readUInt8(at);
    at += 1;
    const size = message.readInt32LE(at);
    if (kind === 0) {
      body = deserialize(message.subarray(at, at + size));
    } else {
      const identifier = readCString(message, at + 4);
      const documents: Document[] = [];
      for (let offset = identifier.end; offset < at + size; offset += message.readInt32LE(offset)) {
        documents.push(deserialize(message.subarray(offset, offset + message.readInt32LE(offset))));
      }
      sequences[identifier.text] = documents;
    }
    at += size;
  }
  return { ...body, ...sequences };
}

function readOpQuery(message: Buffer): Document {
  const collectionName = readCString(message, 20);
  const queryAt = collectionName.end + 8;
  const query = deserialize(message.subarray(queryAt, queryAt + message.readInt32LE(queryAt)));
  return { ...query, $db: collectionName.text.split('.')[0] };
}

function header(length: number, responseTo: number, opCode: number): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeInt32LE(length, 0);
  bytes.writeInt32LE(randomBytes(3).readUIntLE(0, 3), 4);
  bytes.writeInt32LE(responseTo, 8);
  bytes.writeInt32LE(opCode, 12);
  return bytes;
}

function opMsg(responseTo: number, reply: Document): Buffer {
  const body = Buffer.from(serialize(reply));
  const flagsAndKind = Buffer.from([0, 0, 0, 0, 0]);
  return Buffer.concat([header(16 + flagsAndKind.length + body.length, responseTo, OP_MSG), flagsAndKind, body]);
}

function opReply(responseTo: number, reply: Document): Buffer {
  const body = Buffer.from(serialize(reply));
  const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom, numberReturned
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(16 + fields.length + body.length, responseTo, OP_REPLY), fields, body]);
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return value instanceof Long ? value.toNumber() : undefined;
}

// SCRAM-SHA-256 (RFC 7677) as a MongoDB server runs it, for passwords of plain ASCII (SASLprep leaves them as they are).

function saslStart(command: Document, state: ConnectionState): Document {
  if (command.mechanism !== 'SCRAM-SHA-256') return { ok: 0, errmsg: 'Unsupported mechanism', code: 2, codeName: 'BadValue' };
  const clientFirst = (command.payload as Binary).toString('utf8');
  const clientFirstBare = clientFirst.replace(/^[^,]*,[^,]*,/, '');
  const fields = scramFields(clientFirstBare);
  const nonce = `${fields.r ?? ''}${randomBytes(18).toString('base64')}`;
  const salt = randomBytes(16);
  const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${String(SCRAM_ITERATIONS)}`;
  state.conversation = { user: (fields.n ?? '').replaceAll('=2C', ',').replaceAll('=3D', '='), clientFirstBare, serverFirst, nonce, salt };
  return { conversationId: 1, done: false, payload: new Binary(Buffer.from(serverFirst)), ok: 1 };
}

function saslContinue(command: Document, state: ConnectionState, users: Readonly<Record<string, string>>): Document {
  const conversation = state.conversation;
  const failed = { ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' };
  if (conversation === undefined) return failed;
  const clientFinal = (command.payload as Binary).toString('utf8');
  const withoutProof = clientFinal.replace(/,p=[^,]*$/, '');
  const fields = scramFields(clientFinal);
  const password = users[conversation.user];
  if (password === undefined || fields.r !== conversation.nonce || fields.p === undefined) return failed;
  const salted = pbkdf2Sync(password, conversation.salt, SCRAM_ITERATIONS, 32, 'sha256');
  const authMessage = `${conversation.clientFirstBare},${conversation.serverFirst},${withoutProof}`;
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const signature = createHmac('sha256', storedKey).update(authMessage).digest();
  const proof = Buffer.from(fields.p, 'base64');
  if (proof.length !== clientKey.length || !timingSafeEqual(proof, Buffer.from(clientKey.map((byte, index) => byte ^ (signature[index] ?? 0))))) return failed;
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  const serverSignature = createHmac('sha256', serverKey).update(authMessage).digest('base64');
  state.authenticated = true;
  state.conversation = undefined;
  return { conversationId: 1, done: true, payload: new Binary(Buffer.from(`v=${serverSignature}`)), ok: 1 };
}

function scramFields(message: string): Partial<Record<string, string>> {
  return Object.fromEntries(message.split(',').map((part) => [part.slice(0, 1), part.slice(2)]));
}

// Query semantics: what a source's reads use (equality and comparison operators on dotted paths, multi-key sorts).

function valueAt(document: Document, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Document)[key] : undefined), document);
}

const TYPE_ORDER = ['null', 'number', 'string', 'object', 'array', 'objectId', 'boolean', 'date'] as const;

function typeOf(value: unknown): (typeof TYPE_ORDER)[number] {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || value instanceof Long || value instanceof Decimal128) return 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Date) return 'date';
  if (value instanceof ObjectId) return 'objectId';
  return Array.isArray(value) ? 'array' : 'object';
}

/** BSON's comparison order across types, then within a type. */
function compare(left: unknown, right: unknown): number {
  const types = TYPE_ORDER.indexOf(typeOf(left)) - TYPE_ORDER.indexOf(typeOf(right));
  if (types !== 0) return Math.sign(types);
  const comparable = (value: unknown): number | string => {
    if (value instanceof Date) return value.getTime();
    if (value instanceof ObjectId) return value.toHexString();
    if (value instanceof Long || value instanceof Decimal128) return Number(value.toString());
    if (typeof value === 'number' || typeof value === 'string') return value;
    return JSON.stringify(value);
  };
  const [a, b] = [comparable(left), comparable(right)];
  return a < b ? -1 : a > b ? 1 : 0;
}

function matches(document: Document, filter: Document): boolean {
  return Object.entries(filter).every(([path, condition]) => {
    const value = valueAt(document, path);
    const operators = condition !== null && typeof condition === 'object' && Object.keys(condition as Document).every((key) => key.startsWith('$'))
      && Object.keys(condition as Document).length > 0 ? Object.entries(condition as Document) : [['$eq', condition] as const];
    return operators.every(([operator, operand]) => {
      const order = compare(value, operand);
      const sameType = typeOf(value) === typeOf(operand);
      switch (operator) {
        case '$eq': return order === 0;
        case '$ne': return order !== 0;
        case '$gt': return sameType && order > 0;
        case '$gte': return sameType && order >= 0;
        case '$lt': return sameType && order < 0;
        case '$lte': return sameType && order <= 0;
        case '$in': return (operand as unknown[]).some((candidate) => compare(value, candidate) === 0);
        default: throw new Error(`The fake MongoDB does not know the operator ${operator}`);
      }
    });
  });
}

function sortOrder(sort: Document): (left: Document, right: Document) => number {
  return (left, right) => {
    for (const [path, direction] of Object.entries(sort)) {
      const order = compare(valueAt(left, path), valueAt(right, path));
      if (order !== 0) return Number(direction) < 0 ? -order : order;
    }
    return 0;
  };
}
