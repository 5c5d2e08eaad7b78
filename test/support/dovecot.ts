import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import path from 'node:path';

/** A real IMAP server for a test: Debian's Dovecot on a loopback port, its mail and config in a temp directory. */
export interface DovecotServer {
  readonly host: string;
  readonly port: number;
  /** The folders' storage, one Maildir per user. */
  readonly mailDir: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

async function waitForGreeting(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with ${String(child.exitCode)}`);
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('* OK')); });
      socket.once('error', () => { resolve(false); });
    });
    if (greeted) return;
    await delay(50);
  }
  throw new Error('dovecot did not answer on its port');
}

/** Starts Dovecot (installing it through bin/lib/ensure-dovecot.sh when missing) with these users and passwords. */
export async function startDovecot(users: Readonly<Record<string, string>>): Promise<DovecotServer> {
  const binary = execFileSync(path.resolve(import.meta.dirname, '../../bin/lib/ensure-dovecot.sh'), { encoding: 'utf8' }).trim();
  const dir = await mkdtemp(path.join(tmpdir(), 'quarry-dovecot-'));
  // Dovecot's auth process runs as its own user and must reach the passwd file.
  await chmod(dir, 0o711);
  const mailDir = path.join(dir, 'mail');
  await mkdir(path.join(dir, 'run'), { recursive: true });
  await mkdir(mailDir, { recursive: true });
  const port = await freePort();
  // Dovecot refuses to read mail as root: under root the mail belongs to `nobody`.
  const ownUid = process.getuid?.() ?? 0;
  const uid = ownUid === 0 ? Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })) : ownUid;
  const gid = ownUid === 0 ? Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })) : process.getgid?.() ?? 0;
  await chown(mailDir, uid, gid);
  await writeFile(path.join(dir, 'passwd'), Object.entries(users).map(([user, password]) => `${user}:{PLAIN}${password}\n`).join(''), { mode: 0o644 });
  const config = path.join(dir, 'dovecot.conf');
  await writeFile(config, `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = ${String(uid)}
first_valid_gid = ${String(gid)}
mail_location = maildir:${mailDir}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${String(uid)} gid=${String(gid)} home=${dir}/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${String(port)}
  }
  inet_listener imaps {
    port = 0
  }
}
`);
  const child = spawn(binary, ['-F', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let errors = '';
  child.stderr.on('data', (data: Buffer) => { errors += data.toString(); });
  try {
    await waitForGreeting(port, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}: ${errors}`);
  }
  return {
    host: '127.0.0.1',
    port,
    mailDir,
    async close() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        process.kill(-(child.pid ?? 0), 'SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
