// Signs in with fetch so errors show in place; without JavaScript the form posts and the server redirects.
const form = document.getElementById('login-form');
const errorBox = document.getElementById('login-error');

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = false;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const response = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
      body: JSON.stringify({ email: data.get('email'), password: data.get('password'), next: data.get('next') }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.ok && body.success) {
      window.location.assign(body.redirect || '/');
      return;
    }
    showError(body.detail || `Sign-in failed (${response.status}).`);
  } catch {
    showError('Quarry could not be reached. Check that it is running and try again.');
  } finally {
    button.disabled = false;
  }
});
