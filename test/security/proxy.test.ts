import { mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { rawRequest } from '../support/raw-request.ts';

const INSIDE = 'inside-the-docs-site-7f3a';
const OUTSIDE = 'outside-the-docs-site-c81e';

describe('the /transform-docs proxy reaches its upstream only', () => {
  let quarry: TestQuarry;
  let elsewhere: FastifyInstance;
  let elsewhereUrl: string;
  const seenElsewhere: string[] = [];
  let cookie: string;

  beforeAll(async () => {
    elsewhere = Fastify();
    elsewhere.all('/*', async (request) => {
      seenElsewhere.push(`${request.method} ${request.url}`);
      return OUTSIDE;
    });
    elsewhereUrl = await elsewhere.listen({ host: '127.0.0.1', port: 0 });
    quarry = await startQuarry({
      docsServer: true,
      prepare: (dir) => {
        const site = path.join(dir, '.quarry', 'run', 'transform-docs');
        mkdirSync(site, { recursive: true });
        writeFileSync(path.join(site, 'inside.txt'), INSIDE);
        writeFileSync(path.join(dir, 'outside.txt'), OUTSIDE);
        writeFileSync(path.join(dir, '.quarry', 'outside.txt'), OUTSIDE);
      },
    });
    cookie = await quarry.login('viewer');
  });
  afterAll(async () => {
    await quarry.close();
    await elsewhere.close();
  });

  it('serves a file of the docs site (the proxy works)', async () => {
    const response = await rawRequest(quarry.url, 'GET /transform-docs/inside.txt HTTP/1.1', { cookie });
    expect(response.status).toBe(200);
    expect(response.body).toContain(INSIDE);
  });

  it('reaches the docs server over a Unix socket only the service user can open, not over a port', async () => {
    const socketPath = quarry.docsServer?.socket() ?? '';
    expect(socketPath).toBe(path.join(quarry.dir, '.quarry', 'run', 'docs.sock'));
    const info = statSync(socketPath);
    expect({ socket: info.isSocket(), mode: (info.mode & 0o777).toString(8), owner: info.uid }).toEqual({ socket: true, mode: '600', owner: process.getuid?.() });
    const pid = quarry.docsServer?.status().pid;
    const listening = readFileSync('/proc/net/tcp', 'utf8') + readFileSync('/proc/net/tcp6', 'utf8');
    const inodes = new Set([...listening.matchAll(/^\s*\d+: \S+ \S+ 0A(?:\s+\S+){5}\s+(\d+)/gm)].map((match) => match[1]));
    const sockets = readdirSync(`/proc/${String(pid)}/fd`).map((fd) => { try { return readlinkSync(`/proc/${String(pid)}/fd/${fd}`); } catch { return ''; } })
      .map((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1]).filter((inode) => inode !== undefined);
    expect(sockets.filter((inode) => inodes.has(inode))).toEqual([]);
    const manifest = await rawRequest(quarry.url, 'GET /transform-docs/inside.txt HTTP/1.1', { cookie });
    expect(manifest.status).toBe(200);
  });

  it('never forwards to another host or outside the docs site, whatever the request target says', async () => {
    const other = new URL(elsewhereUrl).host;
    const targets = [
      `http://${other}/transform-docs/inside.txt`, `http://${other}/`, `http://${other}/outside.txt`, `//${other}/transform-docs/inside.txt`,
      `/transform-docs//${other}/`, `/transform-docs///${other}/`, `/transform-docs/%2F%2F${other}/`, `/transform-docs/%2f%2f${other}%2f`,
      `/transform-docs/@${other}/`, `/transform-docs@${other}/`, `/transform-docs/http://${other}/`, `/transform-docs/http:%2F%2F${other}/`,
      `/transform-docs/\\\\${other}/`, `/transform-docs/%5C%5C${other}/`, '/transform-docs/../outside.txt', '/transform-docs/../../outside.txt',
      '/transform-docs/../../../outside.txt', '/transform-docs/..%2F..%2Foutside.txt', '/transform-docs/..%2f..%2f..%2foutside.txt',
      '/transform-docs/%2e%2e/%2e%2e/outside.txt', '/transform-docs/%2e%2e%2f%2e%2e%2f%2e%2e%2foutside.txt', '/transform-docs/..%5C..%5Coutside.txt',
      '/transform-docs/%252e%252e/%252e%252e/outside.txt', '/transform-docs/.%2e/.%2e/.%2e/outside.txt', '/manifest.json/../outside.txt',
      '/transform-docs/inside.txt/../../../outside.txt', '/transform-docs/%00/../outside.txt',
    ];
    for (const target of targets) {
      for (const request of [`GET ${target} HTTP/1.1`, `HEAD ${target} HTTP/1.1`]) {
        const response = await rawRequest(quarry.url, request, { cookie });
        // Answered, and never with a server error (an absolute-form target once made the proxy build an invalid URL: 500).
        expect({ request, answered: response.status >= 200 && response.status < 500 }).toEqual({ request, answered: true });
        expect({ request, leaked: response.body.includes(OUTSIDE) }).toEqual({ request, leaked: false });
        const location = /^location:\s*(.*)$/im.exec(response.head)?.[1]?.trim();
        if (location !== undefined) {
          expect({ request, location, onSite: new URL(location, quarry.url).origin === quarry.url && !location.startsWith('//') })
            .toEqual({ request, location, onSite: true });
        }
      }
    }
    // A CONNECT and a Host header naming the other server change nothing either.
    expect((await rawRequest(quarry.url, `CONNECT ${other} HTTP/1.1`, { cookie })).body).not.toContain(OUTSIDE);
    const spoofedHost = await rawRequest(quarry.url, 'GET /transform-docs/outside.txt HTTP/1.1', { cookie, host: other });
    expect(spoofedHost.body).not.toContain(OUTSIDE);
    expect(seenElsewhere).toEqual([]);
  });
});
