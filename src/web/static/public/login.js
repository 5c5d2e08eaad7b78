// Signs in with fetch so errors show in place; without JavaScript the form posts and the server redirects.
import { api, say } from './api.js';

const passwordForm = document.getElementById('login-form');
const codeForm = document.getElementById('totp-form');
const errorBox = document.getElementById('login-error');
const next = passwordForm.elements.next.value;

function showCodeStep() {
  passwordForm.hidden = true;
  codeForm.hidden = false;
  codeForm.elements.code.focus();
}

function follow(result) {
  if (result.requires_2fa) showCodeStep();
  else window.location.assign(result.redirect || '/');
}

async function submit(form, path, body) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  errorBox.hidden = true;
  try {
    follow(await api('POST', path, body));
  } catch (error) {
    say(errorBox, error instanceof TypeError ? 'Quarry could not be reached. Check that it is running and try again.' : error.message);
  } finally {
    button.disabled = false;
  }
}

passwordForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(passwordForm);
  void submit(passwordForm, '/api/auth/login', { email: data.get('email'), password: data.get('password'), next });
});

codeForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void submit(codeForm, '/api/auth/2fa/verify', { code: new FormData(codeForm).get('code').trim(), next });
});

if (new URLSearchParams(window.location.search).get('step') === '2fa') showCodeStep();
