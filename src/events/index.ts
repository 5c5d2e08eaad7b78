export { EVENT_TYPES, type QuarryEvent, type QuarryEventType } from './quarry-event.ts';
export { EventBus } from './event-bus.ts';
export { PostgresEventRelay } from './postgres-event-relay.ts';
