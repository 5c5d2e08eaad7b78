import path from 'node:path';
import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { describeUrl } from '../rest/index.ts';
import { defineSourceType, EnvVarName, HttpUrl, sectionOf } from '../type-definition/index.ts';
import { publishedFileRequest } from './published-file.ts';

export const CsvUrlSection = z.strictObject({
  /** Where the CSV file is published (an export link, a data portal's download URL). */
  url: HttpUrl,
  /** The variable holding a bearer token, for files behind one; the request carries no credentials without it. */
  token_env: EnvVarName.optional(),
  notes: z.string().optional(),
});
export type CsvUrlSection = z.output<typeof CsvUrlSection>;

/**
 * `csv_url`: one CSV file downloaded over HTTP(S), with the engine's retries, into the job's scratch folder;
 * DuckDB's CSV reader loads it whole into `raw_<source>.<source>`, which each sync replaces.
 */
const csvUrlConnector: Connector = {
  async extract(context, sink) {
    const section = sectionOf(context.source) as CsvUrlSection;
    const { name } = context.source;
    const { http, request } = await publishedFileRequest(context, section, 'text/csv, */*');
    const file = path.join(context.workDir, `${name}.csv`);
    await http.download(request, file);
    context.log('INFO', `Downloaded ${describeUrl(request.url)}`);
    sink.table({ name, disposition: 'replace' }).addFile({ path: file, format: 'csv' });
  },
};

export const csvUrlType = defineSourceType({
  key: 'csv_url', category: 'Files & Storage', authType: 'None', wizard: true, incremental: false,
  section: 'own', schema: CsvUrlSection,
  connector: csvUrlConnector,
});
