import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';

export interface GitHubRepository {
  owner: string;
  name: string;
  /** Issues and pull requests share one numbering and the issues list, as on GitHub. */
  issues: Record<string, unknown>[];
  pulls: Record<string, unknown>[];
  commits: Record<string, unknown>[];
  releases: Record<string, unknown>[];
  stargazers: { starred_at: string; user: Record<string, unknown> }[];
}

/** The token the fake accepts; a test may change it to revoke the one a source holds. */
export interface GitHubAccount {
  token: string;
}

const MAX_PER_PAGE = 100;

/**
 * GitHub's REST API for one repository: tokens as bearer (or `token`), `per_page`/`page` pages linked
 * by a `Link` header, and the issues and commits lists' `since` filters.
 */
export async function startGitHubFake(repository: GitHubRepository, account: GitHubAccount): Promise<FakeApi> {
  const api = await startFakeApi((app) => {
    app.addHook('preHandler', async (request, reply) => {
      const header = request.headers.authorization;
      const token = header?.startsWith('token ') === true ? header.slice('token '.length) : bearerOf(request);
      if (token === account.token) return undefined;
      return reply.code(401).send({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    });
    const base = `/repos/${repository.owner}/${repository.name}`;
    const since = (request: FastifyRequest): number => Date.parse((request.query as { since?: string }).since ?? '1970-01-01T00:00:00Z');
    app.get(`${base}/issues`, (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      const state = query.state ?? 'open';
      const matching = repository.issues
        .filter((issue) => state === 'all' || issue.state === state)
        .filter((issue) => Date.parse(String(issue.updated_at)) >= since(request));
      return page(request, reply, sortBy(matching, query.sort === 'updated' ? 'updated_at' : 'created_at', query.direction ?? 'desc'));
    });
    app.get(`${base}/pulls`, (request, reply) => {
      const query = request.query as Record<string, string | undefined>;
      const state = query.state ?? 'open';
      const matching = repository.pulls.filter((pull) => state === 'all' || pull.state === state);
      return page(request, reply, sortBy(matching, query.sort === 'updated' ? 'updated_at' : 'created_at', query.direction ?? 'desc'));
    });
    app.get(`${base}/commits`, (request, reply) => page(request, reply, repository.commits.filter((commit) => {
      return Date.parse((commit as { commit: { committer: { date: string } } }).commit.committer.date) >= since(request);
    })));
    app.get(`${base}/releases`, (request, reply) => page(request, reply, repository.releases));
    app.get(`${base}/stargazers`, (request, reply) => {
      const starred = request.headers.accept?.includes('application/vnd.github.star+json') === true;
      return page(request, reply, starred ? repository.stargazers : repository.stargazers.map((star) => star.user));
    });
  });

  function page(request: FastifyRequest, reply: FastifyReply, items: readonly unknown[]): unknown[] {
    const query = request.query as Record<string, string | undefined>;
    const perPage = Math.min(Number(query.per_page ?? 30), MAX_PER_PAGE);
    const number = Number(query.page ?? 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (to: number, rel: string): string => {
      const url = new URL(request.url, api.url);
      url.searchParams.set('page', String(to));
      return `<${url.href}>; rel="${rel}"`;
    };
    const links = [...(number < last ? [link(number + 1, 'next'), link(last, 'last')] : []), ...(number > 1 ? [link(1, 'first'), link(number - 1, 'prev')] : [])];
    if (links.length > 0) void reply.header('link', links.join(', '));
    return items.slice((number - 1) * perPage, number * perPage);
  }

  return api;
}

function sortBy(items: readonly Record<string, unknown>[], field: string, direction: string): Record<string, unknown>[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => (Date.parse(String(a[field])) - Date.parse(String(b[field]))) * sign);
}

/** A repository with 150 commits (two pages), read through its commits list. */
export const githubContract: ContractVendor = {
  type: 'code_host',
  async start() {
    const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString().replace('.000Z', 'Z');
    const account: GitHubAccount = { token: 'github_pat_contract' };
    const api = await startGitHubFake({
      owner: 'acme', name: 'shop', issues: [], pulls: [], releases: [], stargazers: [],
      commits: records(150, (n) => ({ sha: `c${String(n).padStart(39, '0')}`, commit: { message: `Change ${String(n)}`, committer: { name: 'Dev', date: at(n) } } })),
    }, account);
    return {
      api, env: { CODE_HOST_ACCESS_TOKEN: account.token }, pagedPath: '/repos/acme/shop/commits', table: 'commits', key: 'sha',
      section: ['code_host:', '  owner: acme', '  name: shop', '  resources: [commits]', `  base_url: ${api.url}`],
      revoke() {
        account.token = 'github_pat_revoked';
        return () => { account.token = 'github_pat_contract'; };
      },
      refusal: (url) => `GET ${url}/repos/acme/shop/commits answered 401 Unauthorized: Bad credentials`,
    };
  },
};
