// A page's notice for the syncs and model runs it starts: "started" first, then, when the live event arrives, how
// the job ended in its place, so a stale "started" never stands beside (or instead of) the outcome.
import { api, el, formatNumber } from './api.js';
import { onEvent } from './live.js';

/**
 * Lines in `element`, one per job started from the page. `track` adds one before the request is sent (a quick
 * job's event may arrive before its reply), and returns how to settle it by hand. Starting a job drops the lines
 * of jobs that have ended, so the notice is about what was asked last.
 */
export function jobNotice(element) {
  const lines = new Map();

  function render() {
    const shown = [...lines.values()];
    element.replaceChildren(...shown.map((line) => el('span', { className: 'notice-line', dataset: { state: line.state } }, line.text)));
    element.className = shown.some((line) => line.state === 'error') ? 'notice error' : shown.some((line) => line.state === 'ok') ? 'notice ok' : 'notice';
    element.hidden = shown.length === 0;
  }

  function settle(key, line, outcome) {
    if (lines.get(key) !== line || line.state !== 'pending') return;
    line.state = outcome.ok ? 'ok' : 'error';
    line.text = outcome.text;
    render();
  }

  onEvent((event) => {
    for (const [key, line] of lines) {
      if (line.state !== 'pending') continue;
      if (event.type === 'reconnected') {
        // Events sent while the socket was down are lost: ask the server how the job ended instead.
        void line.recover?.().then((outcome) => { if (outcome) settle(key, line, outcome); }).catch(() => undefined);
        continue;
      }
      const outcome = line.outcomeOf(event);
      if (outcome) settle(key, line, outcome);
    }
  });

  return {
    /**
     * Shows `text` for a job until `outcomeOf(event)` returns `{ ok, text }`; `recover()` may answer the same after
     * a reconnection. Returns `started(text)`, to replace the line's text while it is pending, and `failed(text)`.
     */
    track(key, text, outcomeOf, recover) {
      for (const [other, line] of lines) if (line.state !== 'pending') lines.delete(other);
      const line = { state: 'pending', text, outcomeOf, recover };
      lines.set(key, line);
      render();
      return {
        started(startedText) {
          if (lines.get(key) !== line || line.state !== 'pending') return;
          line.text = startedText;
          render();
        },
        failed(errorText) { settle(key, line, { ok: false, text: errorText }); },
      };
    },
  };
}

/** A sync's outcome from its live events: its rows, or its error. */
function syncOutcome(source, prefix) {
  return (event) => {
    if (event.source !== source) return undefined;
    if (event.type === 'sync_completed') return { ok: true, text: `${prefix}${source} synced: ${formatNumber(event.rows)} rows loaded` };
    if (event.type === 'sync_failed') return { ok: false, text: `${prefix}${prefix ? 'the' : 'The'} sync of ${source} failed: ${event.error}` };
    return undefined;
  };
}

/** After a reconnection: once the source no longer syncs, its newest history entry is this sync's outcome (or a later one's). */
function recoveredSync(source, prefix) {
  return async () => {
    const listed = (await api('GET', '/api/sources')).find((candidate) => candidate.name === source);
    if (!listed || listed.status === 'syncing') return undefined;
    const [latest] = (await api('GET', `/api/sources/${encodeURIComponent(source)}/details`)).history;
    if (!latest) return undefined;
    if (latest.status === 'success') return { ok: true, text: `${prefix}${source} synced: ${formatNumber(latest.rows_processed)} rows loaded` };
    return { ok: false, text: `${prefix}${prefix ? 'the' : 'The'} sync of ${source} ${latest.status === 'failed' ? 'failed' : 'was interrupted'}: see its log` };
  };
}

/** Starts a sync of `source` and says so in `notice` until it ends. Resolves with whether the sync was started. */
export async function startSync(notice, source, { fullRefresh = false } = {}) {
  const line = notice.track(`sync:${source}`, `Starting the sync of ${source}…`, syncOutcome(source, ''), recoveredSync(source, ''));
  try {
    const reply = await api('POST', `/api/sources/${encodeURIComponent(source)}/sync`, { full_refresh: fullRefresh });
    line.started(reply.message);
    return true;
  } catch (error) {
    line.failed(error.message);
    return false;
  }
}

/** Follows a sync the server started after `done` (such as "Uploaded b.csv"), which leads the line. */
export function followSync(notice, source, done) {
  const prefix = `${done}; `;
  notice.track(`sync:${source}`, `${prefix}syncing ${source}…`, syncOutcome(source, prefix), recoveredSync(source, prefix));
}

/** The models a run of `target` builds: itself, and with `cascade` every model downstream of it. */
function modelsOfRun(models, target, cascade) {
  const chosen = new Set([target]);
  for (let grew = cascade; grew;) {
    grew = false;
    for (const model of models) {
      if (!chosen.has(model.name) && model.depends_on.some((upstream) => chosen.has(upstream))) {
        chosen.add(model.name);
        grew = true;
      }
    }
  }
  return chosen;
}

/** What a run has done so far, as one line: how many models ended and how, and each failure's error. */
function runSummary(target, expected, results) {
  const failed = [...results].filter(([, result]) => !result.ok);
  const others = expected.size - 1;
  const what = others === 0 ? target : `${target} and ${others} downstream model${others === 1 ? '' : 's'}`;
  const errors = failed.map(([model, result]) => `${model}: ${result.error}`).join('; ');
  if (results.size < expected.size) return `Running ${what}: ${results.size} of ${expected.size} done${failed.length > 0 ? `, ${failed.length} failed (${errors})` : ''}`;
  if (failed.length === 0) return others === 0 ? `${target} ran successfully` : `Ran ${what}: all ${expected.size} succeeded`;
  if (others === 0) return `The run of ${target} failed: ${failed[0][1].error}`;
  return `Ran ${what}: ${expected.size - failed.length} succeeded, ${failed.length} failed (${errors})`;
}

/**
 * Starts a run of `target` (and its downstream models with `cascade`), saying so in `notice`; as each model's event
 * arrives the line counts it, and once every model of the run has reported it gives the outcome.
 */
export async function startRun(notice, models, target, cascade) {
  const expected = modelsOfRun(models, target, cascade);
  const results = new Map();
  let line;
  const outcomeOf = (event) => {
    if (!expected.has(event.model) || (event.type !== 'transform_run_completed' && event.type !== 'transform_run_failed')) return undefined;
    results.set(event.model, event.type === 'transform_run_completed' ? { ok: true } : { ok: false, error: event.error });
    const text = runSummary(target, expected, results);
    if (results.size < expected.size) {
      line.started(text);
      return undefined;
    }
    return { ok: [...results.values()].every((result) => result.ok), text };
  };
  line = notice.track(`run:${target}`, `Starting the run of ${target}…`, outcomeOf);
  try {
    const reply = await api('POST', `/api/transform/models/${encodeURIComponent(target)}/run?cascade=${cascade}`);
    if (results.size === 0) line.started(reply.message);
  } catch (error) {
    line.failed(error.message);
  }
}
