import path from 'node:path';
import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { describeUrl, valueAt } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { defineSourceType, EnvVarName, HttpUrl, NonEmptyString, sectionOf } from '../type-definition/index.ts';
import { publishedFileRequest } from './published-file.ts';

export const JsonUrlSection = z.strictObject({
  /** Where the file is published (an API's export, a data portal's download URL). */
  url: HttpUrl,
  /** `json`: one document holding a list of records; `jsonl`: one record per line (JSON Lines). */
  format: z.enum(['json', 'jsonl']).default('json'),
  /** For `json`: where the list is in the document, as a dotted path (`data.items`); the document itself when absent. */
  records_path: NonEmptyString.optional(),
  /** The variable holding a bearer token, for files behind one; the request carries no credentials without it. */
  token_env: EnvVarName.optional(),
  notes: z.string().optional(),
}).refine((section) => section.format === 'json' || section.records_path === undefined, {
  path: ['records_path'], error: 'only for format json: a JSON Lines file is its list of records',
});
export type JsonUrlSection = z.output<typeof JsonUrlSection>;

/**
 * `json_url`: one JSON document or JSON Lines file downloaded over HTTP(S), with the engine's retries, and loaded
 * whole into `raw_<source>.<source>`, which each sync replaces. A JSON Lines file is streamed to the job's scratch
 * folder and read by DuckDB; a JSON document is read whole, to find its list of records.
 */
const jsonUrlConnector: Connector = {
  async extract(context, sink) {
    const section = sectionOf(context.source) as JsonUrlSection;
    const { name } = context.source;
    const { http, request } = await publishedFileRequest(context, section, 'application/json, application/jsonl, */*');
    const table = sink.table({ name, disposition: 'replace' });
    if (section.format === 'jsonl') {
      const file = path.join(context.workDir, `${name}.jsonl`);
      await http.download(request, file);
      table.addFile({ path: file, format: 'jsonl' });
    } else {
      const { body } = await http.request(request);
      await table.write(recordsIn(body, section.records_path, request.url));
    }
    context.log('INFO', `Downloaded ${describeUrl(request.url)}`);
  },
};

function recordsIn(document: unknown, recordsPath: string | undefined, url: URL): Record<string, unknown>[] {
  const list = recordsPath === undefined ? document : valueAt(document, recordsPath);
  if (!Array.isArray(list) || !list.every(isRecord)) {
    const where = recordsPath === undefined ? 'at its top level (records_path names where the list is)' : `at ${recordsPath}`;
    throw new SyncFailedError(`${describeUrl(url)} holds no list of records ${where}`);
  }
  return list;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const jsonUrlType = defineSourceType({
  key: 'json_url', category: 'Files & Storage', authType: 'None', wizard: true, incremental: false,
  section: 'own', schema: JsonUrlSection,
  connector: jsonUrlConnector,
});
