import { refuseSourceType } from '../type-definition/index.ts';

/** Types the spec names that sources.yml refuses; they have no registry entry. */
export const sqlDatabaseType = refuseSourceType({
  key: 'sql_database', category: 'Databases', incremental: false,
  reason: 'not registry-backed; use native_pipeline with a generic SQL loader for other databases',
});

export const webScraperType = refuseSourceType({
  key: 'web_scraper', category: 'Other', incremental: false,
  reason: 'reserved for a future release and cannot be configured at present',
});
