export { DashboardBridge, SESSION_COOKIE as DASHBOARD_SESSION_COOKIE } from './dashboard-bridge.ts';
export { loadDashboardDefinitions, type DashboardDefinition } from './dashboard-definitions.ts';
export { DashboardService } from './dashboard-service.ts';
export { startDashboard } from './start-dashboard.ts';
export { SupersetApi } from './superset-api.ts';
export { DASHBOARD_PROCESS_MEMORY, SupersetProcess, SERVICE_ACCOUNT, type SupersetState } from './superset-process.ts';
export { WAREHOUSE_DATABASE, type RegisteredWarehouse } from './warehouse-registration.ts';
