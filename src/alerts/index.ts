export { AlertCenter, type AlertCenterOptions, type Incident } from './alert-center.ts';
export { FreshnessMonitor, type FreshnessMonitorOptions } from './freshness-monitor.ts';
export { AlertDeliveryError, AlertNotFoundError } from './errors.ts';
export type { WebhookBody } from './alert-message.ts';
