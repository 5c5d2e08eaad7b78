import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubFake, type GitHubAccount, type GitHubRepository } from '../fakes/github.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'github_pat_11AAAAAAA0000000000000_fake';

const at = (hour: number): string => new Date(Date.UTC(2026, 0, 1) + hour * 3_600_000).toISOString().replace('.000Z', 'Z');
const user = (n: number): Record<string, unknown> => ({ login: `dev${String(n)}`, id: 5000 + n, type: 'User', site_admin: false });

/** Issue numbers 1-190; every fifth is a pull request, listed among the issues as GitHub does. */
function issue(number: number, updatedHour = number): Record<string, unknown> {
  const isPull = number % 5 === 0;
  return {
    id: 900_000 + number, number, title: `${isPull ? 'PR' : 'Issue'} ${String(number)}`, state: number % 3 === 0 ? 'closed' : 'open',
    user: user(number % 4), labels: number % 2 === 0 ? [{ id: 1, name: 'bug', color: 'd73a4a' }] : [],
    assignees: [], comments: number % 7, created_at: at(number), updated_at: at(updatedHour), closed_at: null,
    ...(isPull ? { pull_request: { url: `https://api.github.com/repos/acme/shop/pulls/${String(number)}`, merged_at: null } } : {}),
  };
}

function repository(): GitHubRepository {
  const issues = records(190, (n) => issue(n));
  return {
    owner: 'acme', name: 'shop', issues,
    pulls: issues.filter((item) => item.pull_request !== undefined).map((item) => ({
      id: 700_000 + Number(item.number), number: item.number, title: item.title, state: item.state, user: item.user,
      created_at: item.created_at, updated_at: item.updated_at, merged_at: null, draft: false,
      head: { ref: `feature-${String(item.number)}`, sha: `h${String(item.number)}` }, base: { ref: 'main', sha: 'b0' },
    })),
    commits: records(130, (n) => ({
      sha: `c${String(n).padStart(39, '0')}`, html_url: `https://github.com/acme/shop/commit/${String(n)}`,
      commit: { message: `Change ${String(n)}`, author: { name: 'Dev', email: 'dev@example.com', date: at(n) }, committer: { name: 'Dev', email: 'dev@example.com', date: at(n) } },
      author: user(n % 3), parents: [{ sha: `c${String(n - 1).padStart(39, '0')}` }],
    })),
    releases: records(3, (n) => ({
      id: 100 + n, tag_name: `v1.${String(n)}.0`, name: `Release 1.${String(n)}`, draft: false, prerelease: n === 3, created_at: at(n), published_at: at(n),
      author: user(1), assets: [{ id: 10 * n, name: 'shop.tar.gz', size: 1024 * n, download_count: n }],
    })),
    stargazers: records(5, (n) => ({ starred_at: at(n), user: user(n) })),
  };
}

const github = repository();
const account: GitHubAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startGitHubFake(github, account);
  quarry = await startQuarry({
    env: { CODE_HOST_ACCESS_TOKEN: TOKEN },
    sourcesYaml: `sources:\n  - name: repo\n    type: code_host\n    code_host:\n      owner: acme\n      name: shop\n      base_url: ${api.url}\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('code_host (GitHub) sources', () => {
  it('loads issues without pull requests, pull requests, commits, releases and stargazers through Link pages', async () => {
    expect(await syncAndWait(quarry, 'repo')).toMatchObject({ type: 'sync_completed', rows: 152 + 38 + 130 + 3 + 5 });
    const counts = await quarry.query(`SELECT
      (SELECT count(*) FROM raw_repo.issues) AS issues, (SELECT count(*) FROM raw_repo.pull_requests) AS pulls,
      (SELECT count(*) FROM raw_repo.commits) AS commits, (SELECT count(*) FROM raw_repo.releases) AS releases,
      (SELECT count(*) FROM raw_repo.stargazers) AS stargazers`);
    expect(counts[0]).toEqual({ issues: 152, pulls: 38, commits: 130, releases: 3, stargazers: 5 });
    expect(await quarry.query('SELECT title, "user".login AS login, labels[1].name AS label FROM raw_repo.issues WHERE number = 42'))
      .toEqual([{ title: 'Issue 42', login: 'dev2', label: 'bug' }]);
    expect(await quarry.query('SELECT head.ref AS ref FROM raw_repo.pull_requests WHERE number = 45')).toEqual([{ ref: 'feature-45' }]);
    expect(await quarry.query("SELECT commit.message AS message, parents[1].sha AS parent FROM raw_repo.commits WHERE sha LIKE '%0077'"))
      .toEqual([{ message: 'Change 77', parent: `c${'76'.padStart(39, '0')}` }]);
    expect(await quarry.query('SELECT tag_name, assets[1].size AS size FROM raw_repo.releases WHERE id = 102')).toEqual([{ tag_name: 'v1.2.0', size: 2048 }]);
    expect(await quarry.query("SELECT \"user\".login AS login FROM raw_repo.stargazers WHERE starred_at = '2026-01-01T04:00:00Z'")).toEqual([{ login: 'dev4' }]);
    const issuePages = api.requests.filter((request) => request.path === '/repos/acme/shop/issues');
    expect(issuePages.map((request) => request.query.get('page'))).toEqual([null, '2']);
    expect(issuePages[0]!.query.get('state')).toBe('all');
    expect(issuePages[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(issuePages[0]!.headers['x-github-api-version']).toBe('2022-11-28');
  });

  it('asks for issues and commits updated since the last sync and merges them', async () => {
    github.issues.splice(9, 1, { ...issue(10, 400), title: 'PR 10 retitled' }, { ...issue(11, 401), title: 'Issue 11 retitled' });
    github.issues.splice(11, 1);
    github.issues.push(issue(191, 402));
    const before = api.requests.length;
    expect(await syncAndWait(quarry, 'repo')).toMatchObject({ type: 'sync_completed' });
    const asked = api.requests.slice(before);
    expect(asked.filter((request) => request.path === '/repos/acme/shop/issues').map((request) => request.query.get('since'))).toEqual([at(189)]); // 190 is a pull request
    expect(asked.filter((request) => request.path === '/repos/acme/shop/commits').map((request) => request.query.get('since'))).toEqual([at(130)]);
    expect(await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, count(*) FILTER (WHERE title = 'Issue 11 retitled') AS retitled FROM raw_repo.issues"))
      .toEqual([{ n: 153, ids: 153, retitled: 1 }]);
    expect((await quarry.ctx.store.sourceState.forSource('repo')).get('issues')).toBe(at(402));
  });

});
