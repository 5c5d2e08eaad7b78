/** The one rule of where sources and alerts may connect, with what enforces it: the dispatcher, the lookup, the socket factory, the SOCKS5 proxy and the resolution drivers are handed. */
export { OutboundPolicy, hostOfServer, tlsServerName, type Resolver } from './outbound-policy.ts';
export { OutboundRefusedError } from './outbound-refused-error.ts';
export { OutboundSocksProxy } from './outbound-socks-proxy.ts';
