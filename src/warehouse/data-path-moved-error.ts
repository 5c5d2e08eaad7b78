import { ConfigError } from '../errors.ts';

/** project.yml names another place for the lake's data than the one its catalog says its files are in. */
export class DataPathMovedError extends ConfigError {
  constructor(stored: string, configured: string) {
    super([
      `warehouse.data_path: the lake's data files are in ${stored}, and project.yml says ${configured}. DuckLake cannot move them in place: `
      + 'put data_path back, or copy the lake with `quarry warehouse move-data` (docs/operations.md).',
    ]);
  }
}
