import { setTimeout as delay } from 'node:timers/promises';
import { describeError } from '../errors.ts';
import type { EventBus } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import type { LakeLocation } from '../warehouse/index.ts';
import type { Store, UserRecord } from '../store/index.ts';
import { DashboardBridge } from './dashboard-bridge.ts';
import { loadDashboardDefinitions } from './dashboard-definitions.ts';
import { DashboardProvisioner } from './dashboard-provisioner.ts';
import { SupersetApi } from './superset-api.ts';
import { SERVICE_ACCOUNT, type SupersetProcess } from './superset-process.ts';
import { SupersetRoles } from './superset-roles.ts';
import { WarehouseRegistration, type RegisteredWarehouse } from './warehouse-registration.ts';

/** Changes to the warehouse are batched this long before Superset's datasets are refreshed. */
const REFRESH_DELAY_MS = 500;
/** How long a user change or login waits for Superset before answering anyway. */
const USER_CHANGE_WAIT_MS = 5000;
const SHUTDOWN_WAIT_MS = 5000;

export interface DashboardServiceOptions {
  readonly superset: SupersetProcess;
  readonly store: Store;
  readonly events: EventBus;
  readonly lake: LakeLocation;
  readonly dashboardsDir: string;
  readonly secretKey: Buffer;
  readonly log: Logger;
  readonly now: () => Date;
}

/**
 * Keeps Superset in step with the platform: each time it starts answering, every user's account,
 * the warehouse registration and the project's dashboards; after each sync or model run, the
 * datasets; after each user change, that user's account.
 */
export class DashboardService {
  readonly superset: SupersetProcess;
  readonly bridge: DashboardBridge;
  readonly #registration: WarehouseRegistration;
  readonly #provisioner: DashboardProvisioner;
  readonly #api: SupersetApi;
  readonly #roles: SupersetRoles;
  readonly #options: DashboardServiceOptions;
  readonly #unsubscribe: (() => void)[] = [];
  #refreshTimer: NodeJS.Timeout | null = null;
  /** One reconciliation at a time, in order. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: DashboardServiceOptions) {
    this.#options = options;
    this.superset = options.superset;
    const api = new SupersetApi({ origin: () => options.superset.origin(), username: SERVICE_ACCOUNT, password: () => options.superset.servicePassword() });
    this.#api = api;
    this.#roles = new SupersetRoles(api);
    this.bridge = new DashboardBridge({ superset: options.superset, api, roles: this.#roles, store: options.store, secretKey: options.secretKey, log: options.log, now: options.now });
    this.#registration = new WarehouseRegistration({ api, roles: this.#roles, lake: options.lake, log: options.log, now: options.now });
    this.#provisioner = new DashboardProvisioner({ api, recordFile: options.superset.stateFile('provisioned-dashboards.json'), log: options.log });
  }

  start(): void {
    this.#unsubscribe.push(this.superset.onRunning(() => {
      this.#roles.forget();
      this.bridge.supersetRestarted();
      this.#registration.supersetRestarted();
      void this.#reconcile();
    }));
    this.#unsubscribe.push(this.#options.events.subscribe((event) => {
      if (event.type === 'transform_run_completed' || (event.type === 'sync_completed' && this.#registration.current() === undefined)) this.#scheduleRefresh();
    }));
    if (this.superset.origin() !== undefined) void this.#reconcile();
  }

  /** Stops following the platform, waiting a bounded time for the work under way. */
  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    await Promise.race([this.#queue, delay(SHUTDOWN_WAIT_MS, undefined, { ref: false })]);
  }

  /** The registered warehouse database, once the replica exists and Superset has seen it. */
  warehouse(): RegisteredWarehouse | undefined {
    return this.#registration.current();
  }

  /**
   * Where the Dashboards link lands: the first dashboard the project ships that Superset still has
   * (the demo's, say), else Superset's list of dashboards.
   */
  async homePath(): Promise<string> {
    try {
      for (const slug of this.#provisioner.provisioned()) {
        const found = await this.#api.list<{ slug: string | null; published: boolean }>('/api/v1/dashboard/', { col: 'slug', opr: 'eq', value: slug });
        if (found.some((dashboard) => dashboard.slug === slug && dashboard.published)) return `/dashboard/superset/dashboard/${encodeURIComponent(slug)}/`;
      }
    } catch (error) {
      this.#options.log.warn({ reason: describeError(error) }, 'the shipped dashboards could not be listed');
    }
    return '/dashboard/dashboard/list/';
  }

  /**
   * Pushes a user change (role, activation, new user) to Superset, waiting for it a bounded time: a
   * slow Superset never holds up user administration, and the proxy's lazy sync covers a failure.
   */
  async userChanged(user: UserRecord): Promise<void> {
    if (this.superset.origin() === undefined) return;
    await this.#boundedAttempt('the dashboard account could not be updated', () => this.bridge.syncUser(user.id));
  }

  async userRemoved(userId: number): Promise<void> {
    if (this.superset.origin() === undefined) return;
    await this.#boundedAttempt('the dashboard account could not be disabled', () => this.bridge.removeUser(userId));
  }

  /** Resolves once the work queued so far is done (tests and shutdown). */
  async idle(): Promise<void> {
    await this.#queue;
  }

  #reconcile(): Promise<void> {
    return this.#serialised('the dashboard tool could not be brought in step with the platform', async () => {
      await this.bridge.syncAll();
      await this.#attempt('the warehouse could not be registered in the dashboard tool', () => this.#refreshWarehouse());
    });
  }

  #scheduleRefresh(): void {
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      void this.#serialised('the dashboard tool\'s datasets could not be refreshed', () => this.#refreshWarehouse());
    }, REFRESH_DELAY_MS);
    this.#refreshTimer.unref();
  }

  async #refreshWarehouse(): Promise<void> {
    if (this.superset.origin() === undefined) return;
    const registered = await this.#registration.refresh(await this.#options.store.warehouseTables.inLayer('marts'));
    if (registered === undefined) return;
    const definitions = loadDashboardDefinitions(this.#options.dashboardsDir, this.#options.log);
    await this.#provisioner.provision(definitions, (table) => this.#registration.datasetId(table));
  }

  #serialised(failure: string, work: () => Promise<unknown>): Promise<void> {
    const turn = this.#queue.then(() => this.#attempt(failure, work));
    this.#queue = turn;
    return turn;
  }

  async #attempt(failure: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.#options.log.warn({ reason: describeError(error) }, failure);
    }
  }

  async #boundedAttempt(failure: string, work: () => Promise<unknown>): Promise<void> {
    await Promise.race([this.#attempt(failure, work), delay(USER_CHANGE_WAIT_MS, undefined, { ref: false })]);
  }
}
