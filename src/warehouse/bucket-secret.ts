import { schemeOf, type ObjectStorageAccess } from '../object-storage/index.ts';
import { quoteLiteral } from './sql.ts';

/**
 * `CREATE TEMPORARY SECRET name (TYPE s3, SCOPE 's3://bucket', ...)` (TYPE gcs for a `gs://` scope, whose keys are
 * HMAC keys; TYPE azure with the connection string for an `az://` container): DuckDB uses it for URLs under `scope` only, and forgets it with the instance. The statement holds the
 * credentials: it is run, never logged.
 */
export function objectStorageSecretStatement(name: string, scope: string, access: ObjectStorageAccess): string {
  if (schemeOf(scope) === 'az') {
    return `CREATE TEMPORARY SECRET ${name} (TYPE azure, CONNECTION_STRING ${quoteLiteral(access.connectionString ?? '')}, SCOPE ${quoteLiteral(scope)})`;
  }
  const options = [
    `TYPE ${schemeOf(scope) === 'gs' ? 'gcs' : 's3'}`,
    `SCOPE ${quoteLiteral(scope)}`,
    ...access.keyId === undefined || access.secret === undefined ? [] : [`KEY_ID ${quoteLiteral(access.keyId)}`, `SECRET ${quoteLiteral(access.secret)}`],
    ...access.endpoint === undefined ? [] : [`ENDPOINT ${quoteLiteral(access.endpoint)}`],
    ...access.region === undefined ? [] : [`REGION ${quoteLiteral(access.region)}`],
    ...access.urlStyle === undefined ? [] : [`URL_STYLE ${quoteLiteral(access.urlStyle)}`],
    `USE_SSL ${String(access.useSsl)}`,
  ];
  return `CREATE TEMPORARY SECRET ${name} (${options.join(', ')})`;
}
