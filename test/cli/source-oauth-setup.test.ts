import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { startFakeGoogleOAuth, type FakeGoogleOAuth } from '../fakes/google-authorization-server.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';
import { spawnSync } from 'node:child_process';

let google: FakeGoogleOAuth;
const dir = mkdtempSync(path.join(tmpdir(), 'quarry-source-oauth-'));

beforeAll(async () => {
  google = await startFakeGoogleOAuth();
  const init = spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive'], { encoding: 'utf8' });
  expect(init.status).toBe(0);
  await allowLoopback(dir);
});

afterAll(async () => {
  await google.api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('quarry oauth setup google --for sources', () => {
  it('runs the authorization-code flow through the loopback listener and stores the tokens sealed', async () => {
    const child = spawn(QUARRY_BIN, [
      'oauth', 'setup', 'google', '--for', 'sources', '--project', dir, '--client-id', google.clientId, '--client-secret', google.clientSecret,
      '--authorization-url', google.authorizationUrl, '--token-url', google.tokenUrl, '--non-interactive',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const authorizationUrl = await new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith(google.authorizationUrl)) resolve(line);
      });
    });
    const url = new URL(authorizationUrl);
    expect(url.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/spreadsheets.readonly');
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // The browser: consent at the provider, which sends it back to the listener.
    const landing = await fetch(authorizationUrl);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('Quarry has access');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    expect(lines.at(-1)).toContain('Quarry can now read google data');

    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain('QUARRY_GOOGLE_SOURCES_CLIENT_SECRET=');
    const firstToken = google.issued.at(-1)!;
    expect(readFileSync(path.join(dir, '.quarry', 'platform.db')).includes(firstToken)).toBe(false);

    // A sync an hour later finds the token expired: it is refreshed with the refresh token, and the new one kept.
    let now = Date.now();
    const ctx = await createContext({ projectDir: dir, env: {}, log: createLogger({ level: 'silent' }), now: () => new Date(now) });
    try {
      const signal = AbortSignal.timeout(10_000);
      expect(await ctx.sourceTokens.accessToken('google', ctx.env, signal)).toBe(firstToken);
      now += 3600 * 1000;
      const refreshed = await ctx.sourceTokens.accessToken('google', ctx.env, signal);
      expect(refreshed).not.toBe(firstToken);
      expect(refreshed).toBe(google.issued.at(-1));
      expect(await ctx.sourceTokens.accessToken('google', ctx.env, signal)).toBe(refreshed);
    } finally {
      await closeContext(ctx);
    }
  });

  it('a refused consent ends the command with one line, storing nothing', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'quarry-source-oauth-'));
    try {
      expect(spawnSync(QUARRY_BIN, ['init', other, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']).status).toBe(0);
      const child = spawn(QUARRY_BIN, [
        'oauth', 'setup', 'google', '--for', 'sources', '--project', other, '--client-id', google.clientId, '--client-secret', google.clientSecret,
        '--authorization-url', google.authorizationUrl, '--token-url', google.tokenUrl, '--non-interactive',
      ], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const redirectUri = await new Promise<string>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          if (line.startsWith(google.authorizationUrl)) resolve(new URL(line).searchParams.get('redirect_uri')!);
        });
      });
      const refused = await fetch(`${redirectUri}?error=access_denied&state=x`);
      expect(refused.status).toBe(400);
      expect(await exited).toBe(1);
      expect(stderr.trim()).toBe('quarry: google refused the authorization: access_denied');
      const ctx = await createContext({ projectDir: other, env: {}, log: createLogger({ level: 'silent' }) });
      try {
        await expect(ctx.sourceTokens.accessToken('google', ctx.env, AbortSignal.timeout(5000))).rejects.toThrow(
          'No google authorization yet: run `quarry oauth setup google --for sources` to grant access',
        );
      } finally {
        await closeContext(ctx);
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
