// The sign-out button of the page header.
const button = document.getElementById('logout');
button?.addEventListener('click', async () => {
  await fetch('/api/auth/logout', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } });
  window.location.assign('/login');
});
