/** `93784000` → `1d 2h 3m 4s`: what a person reads in a status line. */
export function describeUptime(milliseconds: number): string {
  let seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return `${days > 0 ? `${days}d ` : ''}${hours}h ${minutes}m ${seconds}s`;
}
