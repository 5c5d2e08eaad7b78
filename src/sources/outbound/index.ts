/** The one rule of where sources and alerts may connect, with the dispatcher and lookup that enforce it. */
export { OutboundPolicy, hostOfServer } from './outbound-policy.ts';
export { OutboundRefusedError } from './outbound-refused-error.ts';
