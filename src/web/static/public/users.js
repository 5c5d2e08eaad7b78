import { api, el, guarded as guardedBy, say } from './api.js';

const message = document.getElementById('users-message');
const table = document.getElementById('users');
const body = table.querySelector('tbody');
const me = table.dataset.me;
const ROLES = ['viewer', 'editor', 'admin'];

const guarded = (work) => guardedBy(message, work);

function toggleButton(user) {
  return el('button', {
    type: 'button', className: 'secondary', textContent: user.active ? 'Deactivate' : 'Activate', ariaLabel: `${user.active ? 'Deactivate' : 'Activate'} ${user.email}`,
    onclick: () => guarded(async () => {
      if (user.active && !window.confirm(`Deactivate ${user.email}? They are signed out at once.`)) return;
      await api('PATCH', `/api/users/${encodeURIComponent(user.email)}`, { active: !user.active });
      say(message, `${user.email} ${user.active ? 'deactivated' : 'activated'}.`, 'ok');
      await load();
    }),
  });
}

function deleteButton(user) {
  return el('button', {
    type: 'button', className: 'danger', textContent: 'Delete', ariaLabel: `Delete ${user.email}`,
    onclick: () => guarded(async () => {
      if (!window.confirm(`Delete ${user.email}? The account, its sessions and API keys are removed; this cannot be undone.`)) return;
      await api('DELETE', `/api/users/${encodeURIComponent(user.email)}`);
      say(message, `${user.email} deleted.`, 'ok');
      await load();
    }),
  });
}

function roleSelect(user, isMe) {
  const role = el('select', { ariaLabel: `Role of ${user.email}`, disabled: isMe, title: isMe ? 'Another admin can change your role' : '' },
    ...ROLES.map((name) => el('option', { value: name, textContent: name, selected: name === user.role })));
  role.addEventListener('change', () => guarded(async () => {
    if (!window.confirm(`Make ${user.email} ${role.value}? They will have to sign in again.`)) {
      role.value = user.role;
      return;
    }
    await api('PATCH', `/api/users/${encodeURIComponent(user.email)}`, { role: role.value });
    say(message, `${user.email} is now ${role.value}.`, 'ok');
    await load();
  }));
  return role;
}

async function load() {
  const users = await api('GET', '/api/users');
  body.replaceChildren(...users.map((user) => {
    // The API refuses to demote, deactivate or delete yourself, so your own row offers none of it.
    const isMe = user.email === me;
    return el('tr', { dataset: { user: user.email } },
      el('td', {}, user.email), el('td', {}, user.name || '—'), el('td', {}, roleSelect(user, isMe)),
      el('td', {}, user.active ? 'active' : 'inactive'),
      el('td', { className: 'actions-cell' }, isMe ? el('span', { className: 'muted' }, 'You') : toggleButton(user), isMe ? undefined : deleteButton(user)));
  }));
}

document.getElementById('add-user').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  void guarded(async () => {
    const data = Object.fromEntries(new FormData(form));
    await api('POST', '/api/users', data);
    form.reset();
    say(message, `${data.email} added.`, 'ok');
    await load();
  });
});

void guarded(load);
