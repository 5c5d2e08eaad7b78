import type { SupersetApi } from './superset-api.ts';

/** A viewer's only role: Gamma's reads without any of its writes, and read access to the warehouse database. */
export const VIEWER_ROLE = 'quarry_viewer';

/** The role whose permissions a viewer's are filtered from: Superset's own reader, kept current by `superset init`. */
const READER_TEMPLATE_ROLE = 'Gamma';

// An allow-list, not a deny-list: a permission a later Superset adds to Gamma (a new way to publish
// something) stays out until someone decides a viewer should have it. Gamma carries can_write on
// dashboards, charts, tags and themes, which let viewers publish dashboards.
const VIEWER_PERMISSIONS = new Set([
  'can_read', 'can_list', 'can_show', 'can_get', 'menu_access', 'can_userinfo', 'can_language_pack', 'can_log', 'can_recent_activity',
  'can_dashboard', 'can_slice', 'can_explore', 'can_explore_json', 'can_fetch_datasource_metadata', 'can_external_metadata',
  'can_external_metadata_by_name', 'can_get_drill_info', 'can_drill', 'can_view_chart_as_table', 'can_view_query', 'can_query',
  'can_query_form_data', 'can_time_range', 'can_csv', 'can_export', 'can_tags', 'can_get_embedded', 'can_dashboard_permalink',
  'can_share_chart', 'can_share_dashboard',
]);

// Looking needs these writes: a dashboard keeps its filters' state, Explore its form, and a share link
// its permalink in Superset's key-value store; none of them publishes anything to other users.
const VIEWER_STATE_WRITES = new Set(['DashboardFilterStateRestApi', 'ExploreFormDataRestApi', 'DashboardPermalinkRestApi', 'ExplorePermalinkRestApi']);

interface RolePermission { id: number; permission_name: string; view_menu_name: string }

function isViewerPermission(permission: RolePermission): boolean {
  if (VIEWER_PERMISSIONS.has(permission.permission_name)) return true;
  return permission.permission_name === 'can_write' && VIEWER_STATE_WRITES.has(permission.view_menu_name);
}

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

  async ids(names: readonly string[]): Promise<number[]> {
    if (this.#ids === undefined || names.some((name) => this.#ids?.has(name) !== true)) await this.#load();
    if (names.includes(VIEWER_ROLE) && this.#ids?.has(VIEWER_ROLE) !== true) await this.#createViewerRole();
    return names.map((name) => {
      const id = this.#ids?.get(name);
      if (id === undefined) throw new Error(`Superset has no role ${name}`);
      return id;
    });
  }

  /**
   * Sets the viewer role's permissions to Gamma's reads plus `extraPermissionIds` (the warehouse's
   * database_access). Superset replaces a role's permissions as a whole, so this is the one place
   * that sets them.
   */
  async grantViewer(extraPermissionIds: readonly number[]): Promise<void> {
    const [viewerId, templateId] = await this.ids([VIEWER_ROLE, READER_TEMPLATE_ROLE]);
    const template = await this.#api.request<{ result: RolePermission[] }>('GET', `/api/v1/security/roles/${String(templateId)}/permissions/`);
    const ids = [...template.result.filter(isViewerPermission).map((permission) => permission.id), ...extraPermissionIds];
    await this.#api.request('POST', `/api/v1/security/roles/${String(viewerId)}/permissions`, { permission_view_menu_ids: ids });
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
    await this.grantViewer([]); // reads before the warehouse is registered; the registration adds its database
  }
}
