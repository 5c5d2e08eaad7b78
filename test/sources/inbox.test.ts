import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type DovecotServer } from '../support/dovecot.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

let imap: DovecotServer;
let quarry: TestQuarry;

function plain(n: number): string {
  return [`From: "Sender ${String(n)}" <sender${String(n)}@example.com>`, 'To: ann@example.com, team@example.com', `Subject: Order ${String(n)}`,
    `Message-ID: <order-${String(n)}@example.com>`, 'Date: Mon, 05 Jan 2026 10:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '', `Your order ${String(n)} shipped.`, ''].join('\r\n');
}

const WITH_ATTACHMENT = [
  'From: Billing <billing@example.com>', 'To: ann@example.com', 'Cc: Bob <bob@example.com>', 'Subject: =?UTF-8?Q?Rechnung_f=C3=BCr_Januar?=', 'Message-ID: <invoice-1@example.com>',
  'Date: Tue, 06 Jan 2026 09:30:00 +0100', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="outer"', '',
  '--outer', 'Content-Type: multipart/alternative; boundary="inner"', '',
  '--inner', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable', '', 'Anbei die Rechnung f=C3=BCr Januar.', '',
  '--inner', 'Content-Type: text/html; charset=utf-8', '', '<p>Anbei die <b>Rechnung</b></p>', '--inner--', '',
  '--outer', 'Content-Type: application/pdf; name="invoice-2026-01.pdf"', 'Content-Disposition: attachment; filename="invoice-2026-01.pdf"',
  'Content-Transfer-Encoding: base64', '', Buffer.from('%PDF-1.4 fake invoice').toString('base64'), '--outer--', '',
].join('\r\n');

const HTML_ONLY = ['From: news@example.com', 'To: ann@example.com', 'Subject: Newsletter', 'Message-ID: <news-1@example.com>', 'Date: Wed, 07 Jan 2026 08:00:00 +0000',
  'Content-Type: text/html; charset=utf-8', '', '<html><body><h1>News</h1><p>Quarry &amp; friends</p></body></html>', ''].join('\r\n');

async function withMailbox(work: (client: ImapFlow) => Promise<void>): Promise<void> {
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: 'ann', pass: 'mail-password' }, logger: false });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.logout();
  }
}

beforeAll(async () => {
  imap = await startDovecot({ ann: 'mail-password' });
  await withMailbox(async (client) => {
    for (let n = 1; n <= 5; n += 1) await client.append('INBOX', plain(n), [], new Date(Date.UTC(2025, 11, n)));
    await client.append('INBOX', WITH_ATTACHMENT, ['\\Seen'], new Date(Date.UTC(2026, 0, 6)));
    await client.append('INBOX', HTML_ONLY, [], new Date(Date.UTC(2026, 0, 7)));
    await client.mailboxCreate('Archive');
    await client.append('Archive', plain(100));
  });
  const source = (name: string, extra: string, passwordEnv = 'INBOX_PASSWORD') =>
    `  - name: ${name}\n    type: inbox\n    generic_config: {host: ${imap.host}, port: ${String(imap.port)}, tls: false, password_env: ${passwordEnv}${extra}}`;
  quarry = await startQuarry({
    env: { INBOX_USERNAME: 'ann', INBOX_PASSWORD: 'mail-password', WRONG_PASSWORD: 'guess' },
    sourcesYaml: ['sources:', source('mail', ''), source('mail_recent', ', start_date: "2026-01-01"'), source('archive', ', folder: Archive'),
      source('mail_wrong', '', 'WRONG_PASSWORD'), ''].join('\n'),
  });
});

afterAll(async () => {
  await quarry.close();
  await imap.close();
});

describe('inbox (IMAP, against Dovecot)', () => {
  it('loads every message with its addresses, text body and attachment list', async () => {
    expect(await syncAndWait(quarry, 'mail')).toMatchObject({ type: 'sync_completed', rows: 7 });
    expect(await quarry.query('SELECT uid, subject, "from".address AS sender, len("to") AS recipients, text FROM raw_mail.messages WHERE uid = 2'))
      .toEqual([{ uid: 2, subject: 'Order 2', sender: 'sender2@example.com', recipients: 2, text: 'Your order 2 shipped.\r\n' }]);
    expect(await quarry.query("SELECT subject, trim(text, chr(13) || chr(10)) AS text, cc[1].name AS cc, attachments[1].filename AS file, attachments[1].content_type AS type, list_contains(flags, '\\Seen') AS seen FROM raw_mail.messages WHERE message_id = '<invoice-1@example.com>'"))
      .toEqual([{ subject: 'Rechnung für Januar', text: 'Anbei die Rechnung für Januar.', cc: 'Bob', file: 'invoice-2026-01.pdf', type: 'application/pdf', seen: true }]);
    expect(await quarry.query("SELECT text, len(attachments) AS files FROM raw_mail.messages WHERE subject = 'Newsletter'")).toEqual([{ text: 'News\nQuarry & friends', files: 0 }]);
  });

  it('fetches only messages with a UID above the cursor on the next sync', async () => {
    const cursor = (await quarry.ctx.store.sourceState.forSource('mail')).get('messages') as { uid_validity: string; last_uid: number };
    expect(cursor.last_uid).toBe(7);
    await withMailbox(async (client) => {
      await client.append('INBOX', plain(8));
      await client.append('INBOX', plain(9));
    });
    expect(await syncAndWait(quarry, 'mail')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT count(*) AS n, count(DISTINCT uid) AS uids, max(uid) AS top FROM raw_mail.messages')).toEqual([{ n: 9, uids: 9, top: 9 }]);
    expect((await quarry.ctx.store.sourceState.forSource('mail')).get('messages')).toEqual({ uid_validity: cursor.uid_validity, last_uid: 9 });
    expect(await syncAndWait(quarry, 'mail')).toMatchObject({ type: 'sync_completed', rows: 0 });
  });

  it('takes start_date as the earliest arrival day', async () => {
    expect(await syncAndWait(quarry, 'mail_recent')).toMatchObject({ type: 'sync_completed', rows: 4 });
    expect(await quarry.query('SELECT min(uid) AS first FROM raw_mail_recent.messages')).toEqual([{ first: 6 }]);
  });

  it('reloads a folder whose UIDVALIDITY changed', async () => {
    expect(await syncAndWait(quarry, 'archive')).toMatchObject({ type: 'sync_completed', rows: 1 });
    await withMailbox(async (client) => {
      await client.mailboxDelete('Archive');
      await client.mailboxCreate('Archive');
      await client.append('Archive', plain(200));
      await client.append('Archive', plain(201));
    });
    expect(await syncAndWait(quarry, 'archive')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect(await quarry.query('SELECT subject FROM raw_archive.messages ORDER BY uid')).toEqual([{ subject: 'Order 200' }, { subject: 'Order 201' }]);
    expect(await logMessages(quarry, 'archive', 'WARNING')).toEqual(['The UIDVALIDITY of Archive changed; reloading the whole folder']);
  });

  it('fails with one line naming the server and the user when the password is wrong, keeping loaded data', async () => {
    const end = await syncAndWait(quarry, 'mail_wrong');
    expect(end.type).toBe('sync_failed');
    const error = end.type === 'sync_failed' ? end.error : '';
    expect(error).toMatch(new RegExp(`^The IMAP server 127\\.0\\.0\\.1:${String(imap.port)} refused the login of ann: .*Authentication failed`));
    expect(error).not.toContain('guess');
    expect(await logMessages(quarry, 'mail_wrong', 'ERROR')).toEqual([error]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_mail.messages')).toEqual([{ n: 9 }]);
  });
});
