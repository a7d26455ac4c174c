/**
 * The account page's script, served from /account/ (the page's CSP allows only 'self'). Progressive: the copy
 * button is hidden until this script shows it; without it the key is selected by hand.
 */
export const ACCOUNT_JS = `for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.dataset.copy);
  button.hidden = false;
  button.addEventListener('click', async () => {
    field.select();
    try { await navigator.clipboard.writeText(field.value); } catch { document.execCommand('copy'); }
    button.textContent = 'Copied';
  });
}
`;
