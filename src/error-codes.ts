/**
 * Every code the API answers in `{detail, code}`, with its HTTP status and what it means for the caller. The
 * error classes, the error handler and the OpenAPI document all read this one table, so a code cannot be
 * answered with two statuses, and a client can learn every code it must handle from the document.
 * It imports nothing: the project files and every layer of the server may read it.
 *
 * A caller acts on `code`; `detail` is for a person and may change wording.
 */
export const ERROR_CODES = {
  // The request itself and the HTTP layer.
  invalid_request: { status: 400, meaning: 'The request is malformed or fails validation; detail says what, and errors lists each field at fault when there are several' },
  unauthenticated: { status: 401, meaning: 'No valid session or API key came with the request, or the login still waits for its two-factor code' },
  forbidden: { status: 403, meaning: 'The caller is known but its role does not allow this, or its password must be changed first' },
  csrf_failed: { status: 403, meaning: 'A cookie-authenticated write came without the X-Requested-With: XMLHttpRequest header or a same-origin Origin header' },
  not_found: { status: 404, meaning: 'No endpoint has this method and path, or the session, API key or login provider named does not exist' },
  request_timeout: { status: 408, meaning: 'The request did not arrive in full in time; send it again' },
  conflict: { status: 409, meaning: 'The request conflicts with the current state of what it would change' },
  upload_too_large: { status: 413, meaning: 'The body or uploaded file is larger than the limits allow, or the upload has more than one file or too many parts' },
  unsupported_media_type: { status: 415, meaning: 'The body has a Content-Type the endpoint does not take (JSON unless the operation documents another)' },
  rate_limited: { status: 429, meaning: 'Too many requests from this address in the last minute; retry after the Retry-After header\'s seconds' },
  headers_too_large: { status: 431, meaning: 'The request headers are larger than the server accepts' },
  internal_error: { status: 500, meaning: 'The server failed unexpectedly; its log has the details' },
  config_invalid: { status: 500, meaning: 'The project\'s configuration files have problems; detail lists each with its file and location' },
  upstream_unavailable: { status: 502, meaning: 'A service Quarry forwards to (the dashboard or the transform docs) is not answering' },
  platform_db_busy: { status: 503, meaning: 'Another process holds the platform database\'s lock; retry after the Retry-After header\'s seconds' },
  platform_db_unavailable: { status: 503, meaning: 'The platform store (a shared PostgreSQL database) is not answering; retry after the Retry-After header\'s seconds' },
  platform_db_read_only: { status: 503, meaning: 'The platform database cannot be written until an administrator makes it writable; reading still works' },

  // Logins, accounts and API keys.
  invalid_credentials: { status: 401, meaning: 'The email or password is wrong, or the account is inactive' },
  two_factor_attempts_exhausted: { status: 401, meaning: 'Too many wrong two-factor codes ended this login; log in again with the password' },
  invalid_totp_code: { status: 400, meaning: 'The two-factor code is wrong, expired or already used' },
  weak_password: { status: 400, meaning: 'The new password is too short, too common or the same as the current one' },
  oauth_failed: { status: 400, meaning: 'The sign-in through Google or GitHub could not be completed; detail says why' },
  user_not_found: { status: 404, meaning: 'No user has this email' },
  user_exists: { status: 409, meaning: 'A user with this email already exists' },
  two_factor_not_pending: { status: 409, meaning: 'The session has no two-factor step to finish: it is signed in already' },
  locked_out: { status: 429, meaning: 'Too many failed logins for this email from this address; retry after the Retry-After header\'s seconds' },

  // Sources, their files and their syncs.
  source_not_found: { status: 404, meaning: 'No source in sources.yml has this name' },
  source_disabled: { status: 400, meaning: 'The source is disabled in sources.yml, so it is not synced' },
  source_type_not_supported: { status: 400, meaning: 'The source cannot be synced here: this version of Quarry cannot sync its type, or what it needs to run is missing' },
  sources_file_changed: { status: 409, meaning: 'sources.yml changed since the caller read its version; read it again and retry' },
  variable_not_allowed: { status: 400, meaning: 'The source declares or is given an environment variable that belongs to Quarry, to project.yml or to another source' },
  pipeline_module_refused: { status: 400, meaning: 'The pipeline module named is not a module of the project\'s pipelines folder' },
  outside_data_roots: { status: 400, meaning: 'The path is outside the folders project.yml\'s data_roots lets sources read and uploads write' },
  not_a_csv_source: { status: 400, meaning: 'The source is not a local_files or csv source, so it takes no CSV files' },
  not_an_object_source: { status: 400, meaning: 'The source does not read object storage, so it has no objects to list' },
  unsafe_path: { status: 400, meaning: 'The file path is not the full path of a file in the source\'s folder that matches its file_pattern' },
  file_not_found: { status: 404, meaning: 'The source\'s folder has no such file' },
  backfill_not_supported: { status: 400, meaning: 'The source cannot re-load a window of dates: its type has no date ranges, or its endpoints lack a cursor or a primary key' },
  sync_not_found: { status: 404, meaning: 'No sync job has this id' },
  sync_of_another_source: { status: 400, meaning: 'The sync job named synced another source than the one in the path' },
  sync_committed_nothing: { status: 400, meaning: 'The sync committed nothing to the warehouse, so there is nothing to undo' },
  sync_in_progress: { status: 409, meaning: 'A sync of the source is already queued or running; wait for it to end' },
  restore_in_progress: { status: 409, meaning: 'A restore of the source is already queued or running; wait for it to end' },
  snapshot_expired: { status: 409, meaning: 'The warehouse no longer keeps the snapshot from before the sync, so it cannot be restored' },
  maintenance_in_progress: { status: 409, meaning: 'A warehouse maintenance is already queued or running; wait for it to end' },

  // The warehouse and its queries.
  table_not_found: { status: 404, meaning: 'The warehouse has no table with this schema and name' },
  query_not_allowed: { status: 400, meaning: 'The SQL is not one read-only query over the warehouse' },
  query_failed: { status: 400, meaning: 'DuckDB refused or failed the query, or its answer is too large; detail has DuckDB\'s message' },
  query_timeout: { status: 400, meaning: 'The query ran past the time limit (limits.query_seconds) and was stopped' },
  warehouse_busy: { status: 409, meaning: 'Another process has the warehouse open for writing; act through the running Quarry or stop it first' },
  warehouse_catalog_unreachable: { status: 503, meaning: 'The warehouse\'s PostgreSQL catalog cannot be reached or refused the login' },
  warehouse_reader_refused: { status: 503, meaning: 'The PostgreSQL reader role project.yml names cannot read the lake' },

  // Models, schedules, alerts, backups and the Python environments.
  model_not_found: { status: 404, meaning: 'The dbt project has no model with this name' },
  run_not_found: { status: 404, meaning: 'No model run job has this id' },
  run_in_progress: { status: 409, meaning: 'A dbt run touching this model is already queued or running; wait for it to end' },
  docs_generation_failed: { status: 500, meaning: 'dbt could not generate the transform docs; detail has dbt\'s error' },
  schedule_not_found: { status: 404, meaning: 'No schedule in project.yml has this name' },
  schedule_in_progress: { status: 409, meaning: 'The schedule is already running; wait for it to end' },
  alert_not_found: { status: 404, meaning: 'No alert in project.yml has this name' },
  alert_delivery_failed: { status: 502, meaning: 'The alert\'s destination did not take the message' },
  backup_failed: { status: 400, meaning: 'The backup or restore cannot be made as asked, and nothing was written' },
  python_env_unavailable: { status: 503, meaning: 'A Python environment Quarry runs is missing or cannot start; bin/setup repairs it' },
} as const satisfies Record<string, { readonly status: number; readonly meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes answered with `status`: what the class of one status (InvalidRequestError, NotFoundError, ...) may name. */
export type ErrorCodeWithStatus<S extends number> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends S ? C : never;
}[ErrorCode];
