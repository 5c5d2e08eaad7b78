/** Where to go after login: only a path on this site, never another host (`//evil`, `/\evil`, `https://…`). */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (/[\u0000-\u001f\\]/.test(next)) return '/';
  const resolved = new URL(next, 'http://quarry.invalid');
  if (resolved.origin !== 'http://quarry.invalid' || resolved.pathname === '/login') return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
