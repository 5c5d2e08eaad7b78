import { api, say } from './api.js';

const form = document.getElementById('change-form');
const message = document.getElementById('change-message');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  if (data.get('new_password') !== data.get('confirm')) {
    say(message, 'The two new passwords differ.');
    return;
  }
  try {
    await api('POST', '/api/auth/password', { current_password: data.get('current_password'), new_password: data.get('new_password') });
    window.location.assign('/');
  } catch (error) {
    say(message, error.message);
  }
});
