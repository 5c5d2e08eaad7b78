// The sign-out button of the page header.
const button = document.getElementById('logout');
button?.addEventListener('click', async () => {
  // Ending the session closes the page's event feed and fails its requests meanwhile: live.js and api.js must not
  // take that for an expired session and send the person to the sign-in page with that message.
  document.documentElement.dataset.signingOut = 'true';
  await fetch('/api/auth/logout', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } });
  window.location.assign('/login');
});
