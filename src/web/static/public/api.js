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
  // A 401 means the session ended, except for a wrong password, which the page itself reports.
  if (response.status === 401 && data?.code !== 'invalid_credentials' && document.documentElement.dataset.signingOut !== 'true') {
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

/** Sends `file` as the multipart part "file", reporting progress (0..1); fetch cannot report upload progress. */
export function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    request.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) resolve(request.response);
      else reject(new ApiError(request.status, request.response));
    });
    request.addEventListener('error', () => { reject(new Error('The upload was interrupted: check the connection and try again.')); });
    const form = new FormData();
    form.append('file', file);
    request.send(form);
  });
}

/** A status word as a coloured badge; the word itself carries the meaning, the colour only helps. */
export function badge(status) {
  return el('span', { className: `status status-${status}` }, status.replace('_', ' '));
}

export function formatNumber(value) {
  return Number(value).toLocaleString();
}

export function formatDuration(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

/** "3 days ago", "today", or "never" for a freshness object of the sources API. */
export function formatAge(daysOld) {
  if (daysOld === null || daysOld === undefined) return 'never';
  if (daysOld === 0) return 'today';
  return daysOld === 1 ? '1 day ago' : `${daysOld} days ago`;
}

/** A table body's single placeholder row. */
export function emptyRow(columns, text) {
  return el('tr', {}, el('td', { colSpan: columns, className: 'muted' }, text));
}
