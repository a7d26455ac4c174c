import { createHash } from 'node:crypto';

/**
 * The stylesheet of every page, the dashboard's included: the theme (light and dark) and the layout, served from
 * /account/account.css (the pages' CSP allows only 'self').
 */
export const THEME_CSS = `:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6474; --bg: #f6f7f9; --card: #fff;
  --line: #d9dde4; --accent: #0969da; --on-accent: #fff; --danger: #c62828; --warn-bg: #fff4d6; --warn-line: #e0b341; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --muted: #9aa3b2; --bg: #14171c; --card: #1c2027;
  --line: #2e3440; --accent: #58a6ff; --on-accent: #0d1117; --danger: #ff7b72; --warn-bg: #3a2f12; --warn-line: #9e7a1f; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; justify-content: space-between; padding: .75rem 1.5rem;
  border-bottom: 1px solid var(--line); background: var(--card); }
header { flex-wrap: wrap; gap: .5rem 1.25rem; }
header .brand { font-weight: 600; color: var(--fg); text-decoration: none; }
a { color: var(--accent); }
header nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin-right: auto; }
header nav a { color: var(--muted); text-decoration: none; padding: .2rem 0; border-bottom: 2px solid transparent; }
header nav a[aria-current=page] { color: var(--fg); border-bottom-color: var(--accent); }
header form { margin: 0; }
main { max-width: 72rem; margin: 2rem auto; padding: 0 1.5rem; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; } h2 { font-size: 1.1rem; margin: 0 0 .75rem; }
p.muted, .muted { color: var(--muted); }
label { display: block; font-weight: 500; margin: .75rem 0 .25rem; }
input[type=text], input[type=email], input[type=password], input[type=number], select { width: 100%; max-width: 28rem; padding: .5rem .6rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); font: inherit; }
fieldset { border: 0; padding: 0; margin: .75rem 0; } fieldset label { display: inline; font-weight: 400; margin-right: 1rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent);
  color: var(--on-accent); cursor: pointer; }
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
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; margin-bottom: 1.5rem; }
.cards section { margin: 0; } .cards h2 a { color: var(--fg); }
.columns { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0 1.5rem; }
dl.figures { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; margin: 0 0 .75rem; }
dl.figures dt { color: var(--muted); font-size: .8rem; }
dl.figures dd { margin: 0; font-size: 1.25rem; font-weight: 600; font-variant-numeric: tabular-nums; }
dd.bad { color: var(--danger); }
dl.pairs { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .35rem 1rem; margin: 0; }
dl.pairs dt { color: var(--muted); } dl.pairs dd { margin: 0; overflow-wrap: anywhere; }
.chart { margin: 0; } .chart.spark .plot { min-height: 40px; } .chart.bars .plot { min-height: 220px; }
.chart figcaption { font-size: .8rem; }
ol.live { list-style: none; padding: 0; margin: 0; max-height: 32rem; overflow-y: auto; }
ol.live li { padding: .35rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
ol.live li.fresh { animation: fresh 3s ease-out; }
@keyframes fresh { from { background: var(--warn-bg); } to { background: transparent; } }
.scroll { overflow-x: auto; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.url, dd.url, td.addr, td.http { overflow-wrap: anywhere; }
form.filters { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem .75rem; margin-bottom: 1rem; }
form.filters label { margin: 0; } form.filters input, form.filters select { width: auto; max-width: 16rem; }
.tabs { display: flex; flex-wrap: wrap; gap: .5rem; margin-bottom: .75rem; }
.tabs a { padding: .2rem .8rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; }
.tabs a[aria-current] { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
.pager { display: flex; gap: 1rem; align-items: center; margin-top: .75rem; }
.badge.danger { border-color: var(--danger); color: var(--danger); }
form.queue { margin-bottom: 1rem; } th a { color: inherit; } th.num { text-align: right; }
th[aria-sort=descending] a::after { content: " \\2193"; } th[aria-sort=ascending] a::after { content: " \\2191"; }
ol.history { padding-left: 1.25rem; margin: 0; } ol.history li { padding: .15rem 0; overflow-wrap: anywhere; }
@media (max-width: 50rem) {
  header { padding: .6rem 1rem; } main { margin: 1rem auto; padding: 0 .75rem; } section { padding: 1rem; }
  .columns { grid-template-columns: minmax(0, 1fr); }
}
@media (prefers-reduced-motion: reduce) { ol.live li.fresh { animation: none; } }
`;

/**
 * An asset's path with a digest of its content (`?v=…`): a page names the version it was rendered with, so a
 * browser never runs a cached script of an older release against it (the assets are cached for an hour).
 */
export function versioned(path: string, content: string): string {
  return `${path}?v=${createHash('sha256').update(content).digest('hex').slice(0, 12)}`;
}
