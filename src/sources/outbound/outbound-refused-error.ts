import { SyncFailedError } from '../sync-failed-error.ts';

/** A connection to an address outside what sources and alerts may reach; trying again changes nothing. */
export class OutboundRefusedError extends SyncFailedError {
  /** What the address is ("a loopback address (this machine)"), for messages that must not name the host. */
  readonly range: string;
  constructor(host: string, address: string, range: string) {
    const where = host === address ? address : `${host} (${address})`;
    super(`Quarry does not connect to ${where}: it is ${range}; an admin can allow the host under network.allow_private in project.yml`);
    this.range = range;
  }
}
