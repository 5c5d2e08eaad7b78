import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';

const QUARRY = QUARRY_BIN;
const directories: string[] = [];

function temporaryDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'quarry-cli-'));
  directories.push(directory);
  return directory;
}

function quarry(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const result = spawnSync(QUARRY, args, { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe('quarry command line', () => {
  it('initialises a project non-interactively, with the password from the environment', () => {
    const dir = temporaryDirectory();
    const result = quarry(['init', dir, '--name', 'Sales', '--admin-email', 'boss@example.com', '--non-interactive'], { QUARRY_ADMIN_PASSWORD: 'a-good-password' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('boss@example.com');
    expect(readFileSync(path.join(dir, '.quarry', 'project.yml'), 'utf8')).toContain('name: Sales');
    expect(readFileSync(path.join(dir, '.quarry', 'sources.yml'), 'utf8')).toContain('sources:');
    expect(statSync(path.join(dir, '.quarry', 'secret.key')).mode & 0o777).toBe(0o600);
    const again = quarry(['init', dir, '--name', 'Sales', '--admin-email', 'boss@example.com', '--non-interactive'], { QUARRY_ADMIN_PASSWORD: 'a-good-password' });
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`${dir} already holds a Quarry project (.quarry/project.yml exists)`);
  });

  it('fails with one line, no stack trace and no half-made project on bad input', () => {
    const dir = temporaryDirectory();
    const missing = quarry(['init', dir, '--name', 'X', '--non-interactive']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('quarry: --admin-email is required when not running interactively');
    const weak = quarry(['init', dir, '--admin-email', 'a@b.c', '--admin-password', 'short', '--non-interactive']);
    expect(weak.code).toBe(1);
    expect(weak.stderr.trim()).toBe('quarry: The password is too short: use at least 8 characters');
    expect(() => statSync(path.join(dir, '.quarry', 'project.yml'))).toThrow();
    const notProject = quarry(['status', '--project', dir]);
    expect(notProject.code).toBe(1);
    expect(notProject.stderr.trim()).toBe(`${dir} is not a Quarry project: .quarry/project.yml is missing (run "quarry init")`);
  });

  it('says which --project a command run beside a project or inside one of its folders probably meant', () => {
    const dir = temporaryDirectory();
    const project = path.join(dir, 'team', 'warehouse');
    expect(quarry(['init', project, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']).code).toBe(0);
    const beside = quarry(['status'], {}, dir);
    expect(beside.code).toBe(1);
    expect(beside.stderr.trim()).toBe(`${dir} is not a Quarry project: .quarry/project.yml is missing (did you mean --project team/warehouse? Or run "quarry init")`);
    const inside = path.join(project, 'data', 'orders');
    mkdirSync(inside, { recursive: true });
    expect(quarry(['status'], {}, inside).stderr.trim()).toContain('did you mean --project ../..?');
  });

  it('suggests the source a mistyped name probably meant, and none for a name far from every source', () => {
    const dir = temporaryDirectory();
    expect(quarry(['init', dir, '--demo', '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']).code).toBe(0);
    const typo = quarry(['sync', 'ordrs', '--project', dir]);
    expect(typo.code).toBe(1);
    expect(typo.stderr.trim()).toBe('quarry: No source named "ordrs"; did you mean "orders"?');
    expect(quarry(['sync', 'nosuch', '--project', dir]).stderr.trim()).toBe('quarry: No source named "nosuch"');
  });

  it('adds users, refuses duplicates and bad roles, and reports auth status', () => {
    const dir = temporaryDirectory();
    quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const added = quarry(['auth', 'add-user', '--project', dir, '--email', 'e@example.com', '--role', 'editor', '--password', 'editor-password']);
    expect(added).toEqual({ code: 0, stdout: 'Added e@example.com (editor)\n', stderr: '' });
    const duplicate = quarry(['auth', 'add-user', '--project', dir, '--email', 'E@example.com', '--role', 'viewer', '--password', 'editor-password']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr.trim()).toBe('quarry: A user with the email e@example.com already exists');
    const badRole = quarry(['auth', 'add-user', '--project', dir, '--email', 'v@example.com', '--role', 'owner', '--password', 'viewer-password']);
    expect(badRole.stderr.trim()).toBe('quarry: --role must be one of admin, editor, viewer');
    const status = quarry(['auth', 'status', '--project', dir]);
    expect(status.stdout).toContain('Users: 2 (1 admin, 1 editor, 0 viewer)');
  });

  it('reports a broken project.yml with the location of each problem', () => {
    const dir = temporaryDirectory();
    quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    const original = readFileSync(projectFile, 'utf8');
    spawnSync('sh', ['-c', `printf 'name: X\\nweb:\\n  port: 99999\\nauth:\\n  idle_timeout_minutes: -1\\nbogus: 1\\n' > '${projectFile}'`]);
    const result = quarry(['status', '--project', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').sort()).toEqual([
      '.quarry/project.yml: (top level): unknown field bogus',
      '.quarry/project.yml: auth.idle_timeout_minutes: must be greater than 0',
      '.quarry/project.yml: web.port: must be at most 65535',
    ]);
    expect(original).toContain('name:');
  });

  it('starts the server, serves the login page, and stops cleanly on SIGTERM', async () => {
    const dir = temporaryDirectory();
    quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const { child, url, output } = await spawnQuarry(dir);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(`${url}/login`);
    expect(page.status).toBe(200);
    const login = await fetch(`${url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'a-good-password' }),
    });
    expect(login.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => { child.on('exit', resolve); });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('"msg":"shutting down"');
    expect(output()).not.toContain('a-good-password');
  });
});

describe('quarry auth and oauth commands', () => {
  it('unlocks a locked email, and recover prints a temporary admin login that must be changed', async () => {
    const dir = temporaryDirectory();
    quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const { createContext, closeContext } = await import('../../src/context.ts');
    const { createLogger } = await import('../../src/logger.ts');
    const ctx = await createContext({ projectDir: dir, env: {}, log: createLogger({ level: 'silent' }) });
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(ctx.auth.login('a@example.com', 'wrong-password', { ip: '10.0.0.9', userAgent: '' })).rejects.toThrow('Invalid email or password');
    }
    await closeContext(ctx);
    const reopened = await createContext({ projectDir: dir, env: {}, log: createLogger({ level: 'silent' }) });
    await expect(reopened.auth.login('a@example.com', 'a-good-password', { ip: '10.0.0.9', userAgent: '' })).rejects.toThrow('Too many failed logins');
    expect(quarry(['auth', 'unlock', 'A@example.com', '--project', dir]).stdout).toBe('Unlocked A@example.com (1 client cleared)\n');
    await expect(reopened.auth.login('a@example.com', 'a-good-password', { ip: '10.0.0.9', userAgent: '' })).resolves.toBeDefined();

    const recovered = quarry(['auth', 'recover', '--project', dir]);
    expect(recovered.code).toBe(0);
    const email = /Emergency admin created: (\S+)/.exec(recovered.stdout)?.[1];
    const password = /Temporary password \(shown once\): (\S+)/.exec(recovered.stdout)?.[1];
    const session = await reopened.auth.login(email!, password!, { ip: '10.0.0.8', userAgent: '' });
    expect(session.session.stage).toBe('password_change');
    await closeContext(reopened);
    expect(quarry(['auth', 'enable', '--project', dir]).stdout).toBe('Authentication is already enabled\n');
  });

  it('sets up an OAuth login provider: client id in project.yml, secret only in .env', () => {
    const dir = temporaryDirectory();
    quarry(['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    const result = quarry(['oauth', 'setup', 'google', '--project', dir, '--client-id', 'my-client.apps', '--client-secret', 's3cr3t-value', '--non-interactive']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Register this callback URL with the provider: http://127.0.0.1:8800/auth/oauth/google/callback');
    const projectYml = readFileSync(path.join(dir, '.quarry', 'project.yml'), 'utf8');
    expect(projectYml).toContain('client_id: my-client.apps');
    expect(projectYml).not.toContain('s3cr3t-value');
    expect(projectYml).toMatch(/^# Quarry project settings/);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain("QUARRY_GOOGLE_CLIENT_SECRET='s3cr3t-value'");
    expect(statSync(path.join(dir, '.env')).mode & 0o777).toBe(0o600);
    const unknown = quarry(['oauth', 'setup', 'myspace', '--project', dir, '--non-interactive']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('quarry: Unknown login provider "myspace": choose google or github (source providers are set up with the source wizard)');
  });
});
