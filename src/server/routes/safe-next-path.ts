/** Where to go after login: only a path on this site, never another host (`//evil`, `/\evil`, `https://…`, `/.//evil`). */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (/[\u0000-\u001f\\]/.test(next)) return '/';
  const resolved = new URL(next, 'http://quarry.invalid');
  if (resolved.origin !== 'http://quarry.invalid' || resolved.pathname === '/login') return '/';
  // Dot segments can leave a path that starts with `//` (`/.//evil.com` resolves to `//evil.com`): a browser reads that as a host.
  if (resolved.pathname.startsWith('//')) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
