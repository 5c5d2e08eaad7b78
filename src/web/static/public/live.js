// The one WebSocket of a page: events go to every listener (a sync's frequent progress only to progress
// listeners); after a drop it reconnects with backoff and tells listeners with a `reconnected`
// pseudo-event, since events may have been missed.
const listeners = new Set();
const progressListeners = new Set();
const indicator = document.getElementById('live-state');
let socket;
let retryMs = 1000;
let wasConnected = false;

function show(state, text) {
  if (!indicator) return;
  indicator.hidden = false;
  indicator.className = `live live-${state}`;
  indicator.textContent = text;
}

function connect() {
  socket = new WebSocket(`${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws`);
  socket.addEventListener('open', () => {
    retryMs = 1000;
    show('on', 'Live');
    if (wasConnected) for (const listener of listeners) listener({ type: 'reconnected' });
    wasConnected = true;
  });
  socket.addEventListener('message', (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    for (const listener of event.type === 'sync_progress' ? progressListeners : listeners) listener(event);
  });
  socket.addEventListener('close', (event) => {
    if (event.code === 4401) {
      if (document.documentElement.dataset.signingOut === 'true') return;
      window.location.assign(`/login?error=session_expired&next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    show('off', 'Reconnecting…');
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 30_000);
  });
}

/** Calls `listener` with every platform event; the socket opens on the first subscription. */
export function onEvent(listener) {
  listeners.add(listener);
  if (socket === undefined) connect();
}

/** Calls `listener` with each `sync_progress` event (rows and pages a running sync has read). */
export function onProgress(listener) {
  progressListeners.add(listener);
  if (socket === undefined) connect();
}

/** Coalesces bursts of events into one call of `work`. */
export function debounced(work, delayMs = 150) {
  let timer;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(work, delayMs);
  };
}
