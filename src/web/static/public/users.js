import { api, el, guarded as guardedBy, say } from './api.js';

const message = document.getElementById('users-message');
const body = document.querySelector('#users tbody');
const ROLES = ['viewer', 'editor', 'admin'];

const guarded = (work) => guardedBy(message, work);

async function load() {
  const users = await api('GET', '/api/users');
  body.replaceChildren(...users.map((user) => {
    const role = el('select', { ariaLabel: `Role of ${user.email}` }, ...ROLES.map((name) => el('option', { value: name, textContent: name, selected: name === user.role })));
    role.addEventListener('change', () => guarded(async () => {
      if (!window.confirm(`Make ${user.email} ${role.value}? They will have to sign in again.`)) {
        role.value = user.role;
        return;
      }
      await api('PATCH', `/api/users/${encodeURIComponent(user.email)}`, { role: role.value });
      say(message, `${user.email} is now ${role.value}.`, 'ok');
      await load();
    }));
    const toggle = el('button', {
      type: 'button', className: user.active ? 'danger' : 'secondary', textContent: user.active ? 'Deactivate' : 'Activate',
      onclick: () => guarded(async () => {
        if (user.active && !window.confirm(`Deactivate ${user.email}? They are signed out at once.`)) return;
        await api('PATCH', `/api/users/${encodeURIComponent(user.email)}`, { active: !user.active });
        say(message, `${user.email} ${user.active ? 'deactivated' : 'activated'}.`, 'ok');
        await load();
      }),
    });
    return el('tr', {},
      el('td', {}, user.email), el('td', {}, user.name || '—'), el('td', {}, role),
      el('td', {}, user.active ? 'active' : 'inactive'), el('td', {}, toggle));
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
