import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import type { ContractVendor } from './contract-vendor.ts';
import { GoogleOAuth } from './google-oauth.ts';

const SCOPE = 'https://www.googleapis.com/auth/spreadsheets.readonly';

/** Spreadsheet id → sheet title → its cells, row by row, as a user typed them (numbers as numbers). */
export type Spreadsheets = Map<string, Map<string, unknown[][]>>;

/** A1 notation's sheet and column bounds: `'Team Members'!A1:B` → sheet "Team Members", columns 0 to 1. */
function parseRange(range: string): { sheet: string; firstColumn: number; lastColumn: number | undefined } | undefined {
  const match = /^(?:'((?:[^']|'')+)'|([^!]+?))(?:!([A-Z]+)\d*(?::([A-Z]+)\d*)?)?$/.exec(range);
  if (match === null) return undefined;
  const column = (letters: string | undefined) => letters === undefined ? undefined : Array.from(letters).reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0) - 1;
  return { sheet: (match[1] ?? match[2] ?? '').replace(/''/g, "'"), firstColumn: column(match[3]) ?? 0, lastColumn: column(match[4]) };
}

/** Cells as the API renders them: trailing empty cells and rows dropped, UNFORMATTED_VALUE keeping numbers, FORMATTED_VALUE turning them to text. */
function rendered(rows: unknown[][], first: number, last: number | undefined, render: string): unknown[][] {
  const cut = rows.map((row) => {
    const cells = row.slice(first, last === undefined ? undefined : last + 1).map((cell) => render === 'UNFORMATTED_VALUE' ? cell : JSON.stringify(cell ?? '').replace(/^"|"$/g, ''));
    while (cells.length > 0 && (cells.at(-1) === '' || cells.at(-1) === null)) cells.pop();
    return cells;
  });
  while (cut.length > 0 && cut.at(-1)?.length === 0) cut.pop();
  return cut;
}

/** Google Sheets API v4 (`spreadsheets.values.get`) behind Google's OAuth: bearer tokens with the spreadsheets scope. */
export async function startGoogleSheetsFake(spreadsheets: Spreadsheets, oauth: GoogleOAuth): Promise<FakeApi> {
  const api: FakeApi = await startFakeApi((app) => {
    oauth.register(app, () => `${api.url}/token`);
    app.get('/v4/spreadsheets/:id/values/:range', (request, reply) => {
      const rejected = oauth.reject(request, reply, SCOPE);
      if (rejected !== undefined) return rejected;
      const { id, range } = request.params as { id: string; range: string };
      const query = request.query as Record<string, string | undefined>;
      const sheets = spreadsheets.get(id);
      if (sheets === undefined) return reply.code(404).send({ error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
      const parsed = parseRange(range);
      const rows = parsed === undefined ? undefined : sheets.get(parsed.sheet);
      if (parsed === undefined || rows === undefined) {
        return reply.code(400).send({ error: { code: 400, message: `Unable to parse range: ${range}`, status: 'INVALID_ARGUMENT' } });
      }
      const values = rendered(rows, parsed.firstColumn, parsed.lastColumn, query.valueRenderOption ?? 'FORMATTED_VALUE');
      const quoted = /^[A-Za-z0-9_]+$/.test(parsed.sheet) ? parsed.sheet : `'${parsed.sheet.replace(/'/g, "''")}'`;
      return { range: `${quoted}!A1:Z${String(rows.length)}`, majorDimension: query.majorDimension ?? 'ROWS', ...(values.length === 0 ? {} : { values }) };
    });
  });
  return api;
}

/** A sheet of 40 orders, read in one request with the token `quarry oauth setup google --for sources` stored. */
export const googleSheetsContract: ContractVendor = {
  type: 'spreadsheets',
  async start() {
    const sheetId = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';
    const oauth = new GoogleOAuth();
    const orders = [['Order ID', 'Total'], ...Array.from({ length: 40 }, (_, index) => [index + 1, 10 + index / 2])];
    const api = await startGoogleSheetsFake(new Map([[sheetId, new Map([['Orders', orders]])]]), oauth);
    const scopes = ['https://www.googleapis.com/auth/spreadsheets.readonly'];
    const accessToken = oauth.grant(scopes);
    return {
      api, env: {}, pagedPath: '/v4/spreadsheets/', faultAtRequest: 1, table: 'orders', key: 'order_id',
      section: ['spreadsheets:', `  spreadsheet_url_or_id: ${sheetId}`, '  range_names: [Orders]', `  base_url: ${api.url}`],
      async attach(quarry) {
        await quarry.ctx.sourceTokens.save('google', {
          accessToken, expiresAt: Date.now() + 3_600_000, tokenUrl: `${api.url}/token`, clientId: 'sources-client', clientSecretEnv: 'QUARRY_GOOGLE_SOURCES_CLIENT_SECRET',
        });
      },
      revoke() {
        // The user removed Quarry's access in their Google account: the stored token is no longer known.
        oauth.tokens.delete(accessToken);
        return () => { oauth.tokens.set(accessToken, scopes); };
      },
      refusal: (url) => `GET ${url}/v4/spreadsheets/${sheetId}/values/Orders answered 401 Unauthorized: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.`,
    };
  },
};
