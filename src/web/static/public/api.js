// The one way pages talk to the API: JSON in and out, the CSRF header, readable errors.
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.detail || `Request failed (${status})`);
    this.status = status;
    this.code = body?.code;
  }
}

export async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      'X-Requested-With': 'XMLHttpRequest',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => undefined);
  if (response.status === 401 && !path.startsWith('/api/auth/login')) {
    window.location.assign(`/login?error=session_expired&next=${encodeURIComponent(window.location.pathname)}`);
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** Shows a message in a live region; `kind` is "error" or "ok". */
export function say(element, message, kind = 'error') {
  element.textContent = message;
  element.className = kind === 'ok' ? 'notice ok' : 'notice error';
  element.hidden = false;
}

/** Runs `work`, showing any error it throws in `messageElement` instead of losing it. */
export async function guarded(messageElement, work) {
  try {
    await work();
  } catch (error) {
    say(messageElement, error.message);
  }
}

export function el(tag, properties = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(properties)) {
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name in node) node[name] = value;
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== undefined && child !== null));
  return node;
}

export function formatTime(iso) {
  if (!iso) return '—';
  return new Date(iso).toLocaleString();
}
