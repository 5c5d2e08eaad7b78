import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { parseSources } from '../../src/sources/config/index.ts';
import { personioEmployee, personioTime, startFakePersonio, type FakePersonio } from '../fakes/personio.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const CLIENT_ID = 'papi-client';
const CLIENT_SECRET = 'papi-secret';

let personio: FakePersonio;
let quarry: TestQuarry;

beforeAll(async () => {
  personio = await startFakePersonio({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  quarry = await startQuarry({
    env: { HR_SERVICE_CLIENT_ID: CLIENT_ID, HR_SERVICE_CLIENT_SECRET: CLIENT_SECRET },
    sourcesYaml: `sources:\n  - name: people\n    type: hr_service\n    generic_config: {base_url: "${personio.baseUrl}", start_date: 2024-01-01}\n`,
  });
});

afterAll(async () => {
  await quarry.close();
  await personio.close();
});

function requestsTo(path: string, from = 0) {
  return personio.api.requests.slice(from).filter((request) => request.path === `/v1/${path}`);
}

describe('hr_service (Personio)', () => {
  it('exchanges the client credentials for a token and loads employees, absences and attendances page by page', async () => {
    expect(await syncAndWait(quarry, 'people')).toMatchObject({ type: 'sync_completed', rows: 450 + 25 + 40 });
    const counts = await quarry.query(`SELECT (SELECT count(*) FROM raw_people.employees) AS employees,
      (SELECT count(*) FROM raw_people.absences) AS absences, (SELECT count(*) FROM raw_people.attendances) AS attendances`);
    expect(counts).toEqual([{ employees: 450, absences: 25, attendances: 40 }]);
    const employee = await quarry.query(`SELECT email, department.attributes.name AS department, supervisor.attributes.id.value AS supervisor,
      dynamic_1146702 AS shirt FROM raw_people.employees WHERE id = 4`);
    expect(employee).toEqual([{ email: 'employee4@acme.example', department: 'Engineering', supervisor: 1, shirt: 'M' }]);
    expect(await quarry.query('SELECT time_off_type.attributes.name AS kind, employee.attributes.email.value AS email FROM raw_people.absences WHERE id = 503'))
      .toEqual([{ kind: 'Paid vacation', email: 'employee3@acme.example' }]);
    expect(await quarry.query('SELECT project.attributes.name AS project FROM raw_people.attendances WHERE id = 9004')).toEqual([{ project: 'Launch' }]);

    expect(requestsTo('auth')).toHaveLength(1);
    expect(requestsTo('company/employees').map((request) => [request.query.get('offset'), request.query.get('limit')]))
      .toEqual([[null, '200'], ['200', '200'], ['400', '200']]);
    const attendances = requestsTo('company/attendances')[0]!;
    expect(attendances.query.get('start_date')).toBe('2024-01-01');
    expect(attendances.query.get('end_date')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('asks only for what changed since the last sync and merges it', async () => {
    const before = personio.api.requests.length;
    const changedAt = Date.UTC(2024, 8, 1);
    personio.data.employees[6] = personioEmployee(7, changedAt);
    personio.data.employees[6].attributes.last_name!.value = 'Renamed';
    expect(await syncAndWait(quarry, 'people')).toMatchObject({ type: 'sync_completed' });
    expect(requestsTo('company/employees', before)[0]?.query.get('updated_since')).toBe(personioTime(Date.UTC(2024, 0, 1) + 450 * 3_600_000));
    expect(requestsTo('company/time-offs', before)[0]?.query.get('updated_from')).toBe(personioTime(Date.UTC(2024, 0, 1) + 25 * 60_000));
    const rows = await quarry.query("SELECT count(*) AS n, count(DISTINCT id) AS ids, any_value(last_name) FILTER (WHERE id = 7) AS name FROM raw_people.employees");
    expect(rows).toEqual([{ n: 450, ids: 450, name: 'Renamed' }]);
  });

  it('refuses bad variable names and unknown resources, naming the field', () => {
    let caught: unknown;
    try {
      parseSources('sources:\n  - name: people\n    type: hr_service\n    generic_config: {client_secret_env: secret, resources: [employees, payroll], start_date: 2024-13-01}\n');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'sources.yml: sources[0].generic_config.client_secret_env: "secret" is not an environment variable name: use capital letters, digits and underscores, not starting with a digit',
      'sources.yml: sources[0].generic_config.resources[1]: expected one of employees, absences, attendances, absence_types, got "payroll"',
      'sources.yml: sources[0].generic_config.start_date: expected a date YYYY-MM-DD, got "2024-13-01"',
    ]);
  });
});
