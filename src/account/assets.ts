/** The account page's stylesheet and script, served from /account/ (the page's CSP allows only 'self'). */
export const ACCOUNT_CSS = `:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6474; --bg: #f6f7f9; --card: #fff;
  --line: #d9dde4; --accent: #1f6feb; --danger: #c62828; --warn-bg: #fff4d6; --warn-line: #e0b341; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --muted: #9aa3b2; --bg: #14171c; --card: #1c2027;
  --line: #2e3440; --accent: #58a6ff; --danger: #ff7b72; --warn-bg: #3a2f12; --warn-line: #9e7a1f; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; justify-content: space-between; padding: .75rem 1.5rem;
  border-bottom: 1px solid var(--line); background: var(--card); }
header .brand { font-weight: 600; }
header form { margin: 0; }
main { max-width: 60rem; margin: 2rem auto; padding: 0 1.5rem; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; } h2 { font-size: 1.1rem; margin: 0 0 .75rem; }
p.muted, .muted { color: var(--muted); }
label { display: block; font-weight: 500; margin: .75rem 0 .25rem; }
input[type=text], input[type=email], input[type=password], input[type=number], select { width: 100%; max-width: 28rem; padding: .5rem .6rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); font: inherit; }
fieldset { border: 0; padding: 0; margin: .75rem 0; } fieldset label { display: inline; font-weight: 400; margin-right: 1rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; cursor: pointer; }
button.link { background: none; border-color: var(--line); color: var(--fg); }
button.danger { background: none; border-color: var(--danger); color: var(--danger); padding: .2rem .6rem; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { color: var(--muted); font-weight: 500; }
td form { margin: 0; }
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; border: 1px solid var(--line); font-size: .8rem; }
.revoked td { color: var(--muted); } .revoked .name { text-decoration: line-through; }
.notice { border-radius: 6px; padding: .75rem 1rem; margin: 0 0 1rem; border: 1px solid var(--warn-line); background: var(--warn-bg); }
.error { border-color: var(--danger); }
.badge.warn { border-color: var(--warn-line); background: var(--warn-bg); }
tr.deliveries td { border-bottom: 1px solid var(--line); padding-top: 0; } details summary { cursor: pointer; color: var(--muted); }
td form { display: inline-block; margin-right: .25rem; }
.secret-row { display: flex; gap: .5rem; align-items: center; } .secret-row input { max-width: 34rem; }
`;

/** Progressive: the copy button is hidden until this script shows it; without it the key is selected by hand. */
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
