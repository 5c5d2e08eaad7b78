// The overview's Schedules section: next and last runs, live; Run now for editors and up.
import { api, badge, el, emptyRow, formatTime, say } from './api.js';
import { debounced, onEvent } from './live.js';

const table = document.getElementById('schedules');
const body = table.querySelector('tbody');
const message = document.getElementById('schedules-message');
const canRun = table.dataset.canRun === 'yes';

function runButton(schedule) {
  return el('button', {
    type: 'button', className: 'secondary', textContent: 'Run now', ariaLabel: `Run ${schedule.name} now`, disabled: schedule.running,
    onclick: async (event) => {
      event.currentTarget.disabled = true;
      try {
        await api('POST', `/api/schedules/${encodeURIComponent(schedule.name)}/run`);
        say(message, `Schedule ${schedule.name} started`, 'ok');
      } catch (error) {
        say(message, error.message);
      }
      refresh();
    },
  });
}

function outcome(schedule) {
  if (schedule.running) return badge('running');
  if (schedule.last_run) return badge(schedule.last_run.outcome);
  return el('span', { className: 'muted' }, 'never run');
}

async function loadSchedules() {
  const schedules = await api('GET', '/api/schedules');
  if (schedules.length === 0) {
    body.replaceChildren(emptyRow(6, 'No schedules: add them under "schedules:" in .quarry/project.yml.'));
    return;
  }
  body.replaceChildren(...schedules.map((schedule) => el('tr', { dataset: { schedule: schedule.name } },
    el('th', { scope: 'row' }, schedule.name),
    el('td', { className: 'phone-hide' }, el('code', {}, schedule.cron), ` (${schedule.timezone})`),
    el('td', {}, schedule.enabled ? formatTime(schedule.next_run) : badge('disabled')),
    el('td', { className: 'phone-hide' }, formatTime(schedule.last_run?.started_at)),
    el('td', {}, outcome(schedule)),
    el('td', {}, canRun ? runButton(schedule) : undefined),
  )));
}

const refresh = debounced(() => {
  void loadSchedules().catch((error) => { say(message, error.message); });
}, 0);

refresh();
onEvent((event) => {
  if (['schedule_started', 'schedule_completed', 'reconnected'].includes(event.type)) refresh();
});
