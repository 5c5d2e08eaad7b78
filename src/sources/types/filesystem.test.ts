import { describe, expect, it } from 'vitest';
import { configProblemsOf } from '../../../test/support/config-problems.ts';
import { parseSources } from '../config/index.ts';

const filesystemSource = (fields: string): string => `sources:\n  - name: exports\n    type: filesystem\n    filesystem: { ${fields} }\n`;

describe('a filesystem source\'s bucket settings', () => {
  it.each([
    ['an endpoint with something after the port', 'bucket_url: "s3://team-exports", endpoint: "127.0.0.1:8080\\\\@evil.example"', /filesystem\.endpoint: expected host:port without a scheme/],
    ['an endpoint with a scheme', 'bucket_url: "s3://team-exports", endpoint: "https://s3.example.com"', /filesystem\.endpoint: expected host:port/],
    // A dot makes some S3 clients put the bucket in the path, so the host checked would not be the host reached.
    ['a bucket name with a dot', 'bucket_url: "s3://team.exports/2026"', /filesystem\.bucket_url: expected s3:\/\/bucket\/prefix: a bucket name of 3 to 63 lower-case letters, digits and hyphens/],
    ['a bucket name with capitals', 'bucket_url: "gs://Team-Exports"', /filesystem\.bucket_url: expected s3:\/\/bucket\/prefix/],
  ])('refuses %s', (_case, fields, problem) => {
    expect(configProblemsOf(filesystemSource(fields)).join('\n')).toMatch(problem);
  });

  it('takes a plain bucket, a prefix, and a local folder', () => {
    for (const url of ['s3://team-exports', 's3://team-exports/2026/orders', 'gs://team-exports/a_b', 'data/exports']) {
      expect(parseSources(filesystemSource(`bucket_url: "${url}", endpoint: "minio.internal:9000"`))[0]).toMatchObject({ filesystem: { bucket_url: url } });
    }
  });
});
