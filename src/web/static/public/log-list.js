// One log entry as a list item, the same on the overview, a source's page and the logs page.
import { el, formatTime } from './api.js';

export function activityItem(entry) {
  return el('li', { className: `level-${entry.level.toLowerCase()}` },
    el('time', { dateTime: entry.timestamp }, formatTime(entry.timestamp)), ' ',
    el('span', { className: 'level' }, entry.level), ' ',
    el('span', {}, entry.message));
}
