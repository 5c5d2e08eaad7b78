export { checkPlatformHealth, warehouseExists, type PlatformHealthInputs, type PlatformHealthReport } from './platform-health.ts';
export { freshnessLimitsOf, stalenessOf, type FreshnessLimits, type Staleness } from './freshness.ts';
export { warehouseSize } from './warehouse-size.ts';
