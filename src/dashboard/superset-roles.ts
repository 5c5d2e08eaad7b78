import type { SupersetApi } from './superset-api.ts';

/** Gamma plus this role is a viewer: read access to the warehouse database, nothing else. */
export const VIEWER_ROLE = 'quarry_viewer';

/**
 * Superset's role ids by name (they differ between metadata DBs). Quarry's own viewer role is
 * created the first time it is asked for, so accounts never wait for the warehouse registration.
 */
export class SupersetRoles {
  readonly #api: SupersetApi;
  #ids: Map<string, number> | undefined;

  constructor(api: SupersetApi) {
    this.#api = api;
  }

  /** Superset (re)started: its metadata DB may be new. */
  forget(): void {
    this.#ids = undefined;
  }

  async id(name: string): Promise<number> {
    const [id] = await this.ids([name]);
    if (id === undefined) throw new Error(`Superset has no role ${name}`);
    return id;
  }

  async ids(names: readonly string[]): Promise<number[]> {
    if (this.#ids === undefined || names.some((name) => this.#ids?.has(name) !== true)) await this.#load();
    if (names.includes(VIEWER_ROLE) && this.#ids?.has(VIEWER_ROLE) !== true) await this.#createViewerRole();
    return names.map((name) => {
      const id = this.#ids?.get(name);
      if (id === undefined) throw new Error(`Superset has no role ${name}`);
      return id;
    });
  }

  async #load(): Promise<void> {
    const roles = await this.#api.list<{ id: number; name: string }>('/api/v1/security/roles/');
    this.#ids = new Map(roles.map((role) => [role.name, role.id]));
  }

  async #createViewerRole(): Promise<void> {
    try {
      await this.#api.request('POST', '/api/v1/security/roles/', { name: VIEWER_ROLE });
    } catch (error) {
      // Created meanwhile by a concurrent request: the reload below finds it.
      await this.#load();
      if (this.#ids?.has(VIEWER_ROLE) !== true) throw error;
      return;
    }
    await this.#load();
  }
}
