import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStrapiFake, type StrapiAccount, type StrapiEntry } from '../fakes/strapi.ts';
import { configProblemsOf } from '../support/config-problems.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const TOKEN = 'a1b2c3d4e5f6fake-strapi-api-token';
const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
const author = (n: number) => ({ data: { id: n, attributes: { name: `Author ${String(n)}`, createdAt: at(0), updatedAt: at(0) } } });

function collections(): Record<string, StrapiEntry[]> {
  return {
    articles: records(230, (n) => ({
      id: n,
      attributes: {
        title: `Article ${String(n)}`, slug: `article-${String(n)}`, body: 'Text', createdAt: at(n), updatedAt: at(n), publishedAt: at(n),
        seo: { metaTitle: `Meta ${String(n)}`, keywords: null },
        author: author(n % 4 + 1),
        tags: { data: n % 2 === 0 ? [{ id: 1, attributes: { name: 'news' } }, { id: 2, attributes: { name: 'tech' } }] : [] },
        cover: { data: n % 3 === 0 ? null : { id: 100 + n, attributes: { url: `/uploads/${String(n)}.png`, width: 800, formats: { thumbnail: { url: `/uploads/t_${String(n)}.png` } } } } },
      },
    })),
    'blog-posts': records(7, (n) => ({ id: n, attributes: { headline: `Post ${String(n)}`, createdAt: at(n), updatedAt: at(n), publishedAt: at(n) } })),
  };
}

const account: StrapiAccount = { token: TOKEN };
let api: FakeApi;
let quarry: TestQuarry;

beforeAll(async () => {
  api = await startStrapiFake(collections(), account);
  quarry = await startQuarry({
    env: { HEADLESS_CMS_API_TOKEN: TOKEN },
    sourcesYaml: `sources:\n  - name: cms\n    type: headless_cms\n    generic_config:\n      base_url: ${api.url}\n      collections: [articles, blog-posts]\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await api.close();
});

describe('headless_cms (Strapi) sources', () => {
  it('loads each collection page by page, entries and populated relations flattened', async () => {
    expect(await syncAndWait(quarry, 'cms')).toMatchObject({ type: 'sync_completed', rows: 237 });
    expect(await quarry.query('SELECT (SELECT count(*) FROM raw_cms.articles) AS articles, (SELECT count(*) FROM raw_cms.blog_posts) AS posts'))
      .toEqual([{ articles: 230, posts: 7 }]);
    expect(await quarry.query(`SELECT title, author.name AS author, len(tags) AS tags, tags[2].name AS second_tag, cover.formats.thumbnail.url AS thumb, seo."metaTitle" AS meta
      FROM raw_cms.articles WHERE id = 8`)).toEqual([{ title: 'Article 8', author: 'Author 1', tags: 2, second_tag: 'tech', thumb: '/uploads/t_8.png', meta: 'Meta 8' }]);
    expect(await quarry.query('SELECT cover, len(tags) AS tags FROM raw_cms.articles WHERE id = 9')).toEqual([{ cover: null, tags: 0 }]);
    const pages = api.requests.filter((request) => request.path === '/api/articles');
    expect(pages.map((request) => request.query.get('pagination[page]'))).toEqual([null, '2', '3']);
    expect(pages[0]!.query.get('pagination[pageSize]')).toBe('100');
    expect(pages[0]!.query.get('populate')).toBe('*');
    expect(pages[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('requires base_url and collections, naming each place', () => {
    expect(configProblemsOf('sources:\n  - {name: cms, type: headless_cms, generic_config: {api_token_env: STRAPI_TOKEN}}\n  - {name: cms2, type: headless_cms, generic_config: {base_url: cms.local, collections: []}}\n')).toEqual([
      'sources.yml: sources[0].generic_config.base_url: required',
      'sources.yml: sources[0].generic_config.collections: required',
      'sources.yml: sources[1].generic_config.base_url: expected an http(s) URL, got "cms.local"',
      'sources.yml: sources[1].generic_config.collections: must not be empty',
    ]);
  });
});
