export { checkPlatformHealth, warehouseExists, warehouseSize, type PlatformHealthInputs, type PlatformHealthReport } from './platform-health.ts';
export { freshnessLimitsOf, stalenessOf, type FreshnessLimits, type Staleness } from './freshness.ts';
