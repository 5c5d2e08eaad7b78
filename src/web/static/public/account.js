import { api, el, formatTime, guarded as guardedBy, say } from './api.js';

const message = document.getElementById('account-message');
const sessionsBody = document.querySelector('#sessions tbody');
const keysBody = document.querySelector('#api-keys tbody');

const guarded = (work) => guardedBy(message, work);

async function loadSessions() {
  const sessions = await api('GET', '/api/auth/sessions');
  sessionsBody.replaceChildren(...sessions.map((session) => el('tr', {},
    el('td', {}, formatTime(session.created_at)),
    el('td', {}, formatTime(session.last_seen_at)),
    el('td', {}, session.ip),
    el('td', { className: 'wrap' }, session.user_agent || '—'),
    el('td', {}, session.current
      ? el('span', { className: 'muted' }, 'This browser')
      : el('button', {
        type: 'button', className: 'secondary', textContent: 'Sign out',
        onclick: () => guarded(async () => {
          if (!window.confirm('Sign out this session?')) return;
          await api('DELETE', `/api/auth/sessions/${encodeURIComponent(session.id)}`);
          say(message, 'Session signed out.', 'ok');
          await loadSessions();
        }),
      })),
  )));
}

async function loadKeys() {
  const keys = await api('GET', '/api/auth/api-keys');
  if (keys.length === 0) {
    keysBody.replaceChildren(el('tr', {}, el('td', { colSpan: 5, className: 'muted' }, 'No API keys yet.')));
    return;
  }
  keysBody.replaceChildren(...keys.map((key) => el('tr', {},
    el('td', {}, key.name),
    el('td', {}, el('code', {}, `${key.prefix}…`)),
    el('td', {}, key.expires_at ? formatTime(key.expires_at) : 'never'),
    el('td', {}, formatTime(key.last_used_at)),
    el('td', {}, el('button', {
      type: 'button', className: 'danger', textContent: 'Revoke', ariaLabel: `Revoke key ${key.name}`,
      onclick: () => guarded(async () => {
        if (!window.confirm(`Revoke the key "${key.name}"? Scripts using it stop working at once.`)) return;
        await api('DELETE', `/api/auth/api-keys/${encodeURIComponent(key.id)}`);
        say(message, `Key "${key.name}" revoked.`, 'ok');
        await loadKeys();
      }),
    })),
  )));
}

async function loadTwoFactor() {
  const me = await api('GET', '/api/auth/me');
  const state = document.getElementById('twofactor-state');
  const start = document.getElementById('twofactor-start');
  const form = document.getElementById('twofactor-form');
  document.getElementById('twofactor-enroll').hidden = true;
  state.textContent = me.two_factor_enabled ? 'Two-factor authentication is on.' : 'Two-factor authentication is off.';
  start.hidden = me.two_factor_enabled;
  form.hidden = !me.two_factor_enabled;
  form.dataset.mode = me.two_factor_enabled ? 'disable' : 'enable';
  document.getElementById('twofactor-submit').textContent = me.two_factor_enabled ? 'Turn off' : 'Turn on';
}

document.getElementById('end-others').addEventListener('click', () => guarded(async () => {
  if (!window.confirm('Sign out every other session?')) return;
  const result = await api('DELETE', '/api/auth/sessions');
  say(message, `${result.ended} other session(s) signed out.`, 'ok');
  await loadSessions();
}));

document.getElementById('new-key').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  void guarded(async () => {
    const data = new FormData(form);
    const expiry = data.get('expires_at');
    const created = await api('POST', '/api/auth/api-keys', { name: data.get('name'), expires_at: expiry ? `${expiry}:00`.slice(0, 19) : null });
    document.getElementById('new-key-value').textContent = created.key;
    document.getElementById('new-key-shown').hidden = false;
    form.reset();
    await loadKeys();
  });
});

document.getElementById('password-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  void guarded(async () => {
    const data = new FormData(form);
    try {
      await api('POST', '/api/auth/password', {
        current_password: data.get('current_password'), new_password: data.get('new_password'), revoke_api_keys: data.get('revoke_api_keys') === 'on',
      });
    } catch (error) {
      throw error.code === 'invalid_credentials' ? new Error('The current password is not right.') : error;
    }
    const revoked = data.get('revoke_api_keys') === 'on';
    form.reset();
    say(message, `Password changed. Your other sessions were signed out${revoked ? ' and your API keys revoked' : ''}.`, 'ok');
    await loadSessions();
    if (revoked) await loadKeys();
  });
});

document.getElementById('twofactor-start').addEventListener('click', () => guarded(async () => {
  const enrollment = await api('POST', '/api/auth/2fa/setup');
  document.getElementById('twofactor-qr').src = `data:image/svg+xml;base64,${btoa(enrollment.qr_svg)}`;
  document.getElementById('twofactor-secret').textContent = enrollment.secret;
  document.getElementById('twofactor-enroll').hidden = false;
  const form = document.getElementById('twofactor-form');
  form.hidden = false;
  form.dataset.mode = 'enable';
  form.elements.code.focus();
}));

document.getElementById('twofactor-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  void guarded(async () => {
    const mode = form.dataset.mode;
    if (mode === 'disable' && !window.confirm('Turn two-factor authentication off?')) return;
    await api('POST', `/api/auth/2fa/${mode}`, { code: new FormData(form).get('code').trim() });
    form.reset();
    say(message, mode === 'enable' ? 'Two-factor authentication is now on.' : 'Two-factor authentication is now off.', 'ok');
    await loadTwoFactor();
  });
});

void guarded(() => Promise.all([loadSessions(), loadKeys(), loadTwoFactor()]));
