import { ImapFlow, type FetchMessageObject, type MessageAddressObject } from 'imapflow';
import { z } from 'zod';
import { firstLineOf } from '../../errors.ts';
import type { Connector, ExtractContext, TableSpec } from '../connector.ts';
import { tlsServerName } from '../outbound/index.ts';
import { requireEnv } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { CalendarDate, EnvVarName, NonEmptyString, genericConfig, defineSourceType, sectionOf } from '../type-definition/index.ts';
import { attachmentsOf, htmlToText, textPartOf } from './mail-parts.ts';

const HostName = z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9-.]*[A-Za-z0-9])?$/, {
  error: (issue) => `${JSON.stringify(issue.input)} is not a host name`,
});

export const InboxConfig = genericConfig({
  host: HostName.optional(),
  /** 993 with TLS, 143 without. */
  port: z.int().min(1).max(65_535).optional(),
  /** Implicit TLS from the first byte (IMAPS); false for a plain connection (which STARTTLS upgrades when offered). */
  tls: z.boolean().default(true),
  folder: NonEmptyString.default('INBOX'),
  username_env: EnvVarName.default('INBOX_USERNAME'),
  password_env: EnvVarName.default('INBOX_PASSWORD'),
  /** Messages received on or after this day. */
  start_date: CalendarDate.optional(),
}).refine((config) => config.host !== undefined, { path: ['host'], error: 'required: the IMAP server host name' });
export type InboxConfig = z.output<typeof InboxConfig>;

const TABLE = 'messages';

/** Where the last sync stopped: UIDs mean nothing once the folder's UIDVALIDITY changes. */
interface MailboxCursor { readonly uid_validity: string; readonly last_uid: number }

function isCursor(value: unknown): value is MailboxCursor {
  return typeof value === 'object' && value !== null && typeof (value as MailboxCursor).uid_validity === 'string' && typeof (value as MailboxCursor).last_uid === 'number';
}

const address = (entry: MessageAddressObject) => ({ name: entry.name ?? null, address: entry.address ?? null });

/** One line for what went wrong, naming the server and the user, never the password. */
function describeFailure(error: unknown, config: InboxConfig, user: string, port: number): SyncFailedError {
  const where = `${config.host ?? ''}:${String(port)}`;
  const failure = error as { authenticationFailed?: boolean; responseText?: string; code?: string; message?: string };
  if (failure.authenticationFailed === true) {
    return new SyncFailedError(`The IMAP server ${where} refused the login of ${user}: ${failure.responseText ?? 'authentication failed'}`);
  }
  if (failure.code === 'ECONNREFUSED') return new SyncFailedError(`Could not connect to the IMAP server ${where}: connection refused`);
  if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') return new SyncFailedError(`Could not resolve the host name ${config.host ?? ''} (DNS lookup failed)`);
  return new SyncFailedError(`The IMAP session with ${where} failed: ${firstLineOf(failure.responseText ?? failure.message ?? error)}`);
}

async function readText(client: ImapFlow, uid: number, part: { part: string; type: string }): Promise<string> {
  const { content } = await client.download(String(uid), part.part, { uid: true });
  if (content === undefined) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks).toString('utf8');
  return part.type === 'text/html' ? htmlToText(text) : text;
}

function isoTime(value: Date | string | undefined): string | null {
  if (value === undefined) return null;
  return value instanceof Date ? value.toISOString() : value;
}

function messageRecord(message: FetchMessageObject, uidValidity: string, text: string | null): Record<string, unknown> {
  const envelope = message.envelope;
  return {
    uid_validity: uidValidity,
    uid: message.uid,
    message_id: envelope?.messageId ?? null,
    subject: envelope?.subject ?? null,
    from: envelope?.from?.[0] === undefined ? null : address(envelope.from[0]),
    to: (envelope?.to ?? []).map(address),
    cc: (envelope?.cc ?? []).map(address),
    date: isoTime(envelope?.date),
    received_at: isoTime(message.internalDate),
    in_reply_to: envelope?.inReplyTo ?? null,
    flags: [...(message.flags ?? [])],
    size: message.size ?? null,
    text,
    attachments: message.bodyStructure === undefined ? [] : attachmentsOf(message.bodyStructure),
  };
}

async function extractMailbox(client: ImapFlow, config: InboxConfig, context: ExtractContext, sink: Parameters<Connector['extract']>[1]): Promise<void> {
  const lock = await client.getMailboxLock(config.folder, { readOnly: true });
  try {
    const mailbox = client.mailbox;
    if (mailbox === false) throw new SyncFailedError(`The folder ${config.folder} could not be opened`);
    const uidValidity = String(mailbox.uidValidity);
    const saved = context.fullRefresh ? undefined : context.state.get(TABLE);
    const resume = isCursor(saved) && saved.uid_validity === uidValidity ? saved.last_uid : undefined;
    if (isCursor(saved) && resume === undefined) {
      context.log('WARNING', `The UIDVALIDITY of ${config.folder} changed; reloading the whole folder`);
    }
    // A new UIDVALIDITY, or a first sync, reloads everything; otherwise only UIDs above the last one are new.
    const spec: TableSpec = resume === undefined ? { name: TABLE, disposition: 'replace' } : { name: TABLE, disposition: 'merge', primaryKey: ['uid_validity', 'uid'] };
    const writer = sink.table(spec);
    const query = { uid: `${String((resume ?? 0) + 1)}:*`, ...(config.start_date === undefined ? {} : { since: new Date(`${config.start_date}T00:00:00Z`) }) };
    const found = await client.search(query, { uid: true });
    // `n:*` always names the newest message, even when its UID is below n.
    const uids = (found === false || found === undefined ? [] : found).filter((uid) => uid > (resume ?? 0)).sort((a, b) => a - b);
    const fetched: FetchMessageObject[] = [];
    if (uids.length > 0) {
      for await (const message of client.fetch(uids.join(','), { uid: true, envelope: true, bodyStructure: true, internalDate: true, size: true, flags: true }, { uid: true })) {
        fetched.push(message);
      }
    }
    for (const message of fetched) {
      context.signal.throwIfAborted();
      const textPart = message.bodyStructure === undefined ? undefined : textPartOf(message.bodyStructure);
      const text = textPart === undefined ? null : await readText(client, message.uid, textPart);
      await writer.write([messageRecord(message, uidValidity, text)]);
    }
    const lastUid = Math.max(resume ?? 0, ...uids);
    context.state.set(TABLE, { uid_validity: uidValidity, last_uid: lastUid } satisfies MailboxCursor);
    context.log('INFO', `Fetched ${String(fetched.length)} message(s) of ${config.folder}`);
  } finally {
    lock.release();
  }
}

/** `inbox`: one folder of an IMAP mailbox, new messages by UID (with the folder's UIDVALIDITY in the cursor). */
const inboxConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as InboxConfig;
    const user = requireEnv(context.env, config.username_env, 'the IMAP user name');
    const password = requireEnv(context.env, config.password_env, 'the IMAP password');
    const port = config.port ?? (config.tls ? 993 : 143);
    const host = config.host ?? '';
    const address = await context.outbound.resolveReachable(host).catch((error: unknown) => {
      throw error instanceof SyncFailedError ? error : describeFailure(error, config, user, port);
    });
    // The client connects to the address the policy allowed, never to what the name resolves to by then; TLS verifies the name.
    const client = new ImapFlow({
      host: address, ...tlsServerName(host), port, secure: config.tls, auth: { user, pass: password }, logger: false, disableAutoIdle: true,
    });
    client.on('error', () => undefined); // a dropped connection also rejects the command in flight, which reports it
    const abort = (): void => { client.close(); };
    context.signal.addEventListener('abort', abort, { once: true });
    try {
      await client.connect();
      await extractMailbox(client, config, context, sink);
      await client.logout();
    } catch (error) {
      if (error instanceof SyncFailedError || context.signal.aborted) throw error;
      throw describeFailure(error, config, user, port);
    } finally {
      context.signal.removeEventListener('abort', abort);
      client.close();
    }
  },
};

export const inboxType = defineSourceType({
  key: 'inbox', category: 'Files & Storage', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: InboxConfig,
  connector: inboxConnector,
});
