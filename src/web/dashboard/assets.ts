import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** uPlot (MIT, leeoniya/uPlot), served from this origin: the page's CSP allows no other. */
export const UPLOT_JS = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
export const UPLOT_CSS = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');

/**
 * The dashboard's script. Every page works without it; it adds the charts (uPlot), the overview's live list of
 * new hosts (the session's event stream at /app/stream) and search as you type. Text from outside is only ever
 * set as text, never parsed as markup, except the search results, which come back as this service's own
 * escaped HTML.
 */
export const DASHBOARD_JS = `'use strict';
(() => {
  const css = getComputedStyle(document.documentElement);
  const colour = (name, fallback) => css.getPropertyValue(name).trim() || fallback;

  function drawChart(figure) {
    const target = figure.querySelector('.plot');
    const days = JSON.parse(figure.dataset.days);
    const values = JSON.parse(figure.dataset.values);
    const xs = days.map((day) => Date.parse(day + 'T00:00:00Z') / 1000);
    const spark = figure.dataset.chart === 'spark';
    const accent = colour('--accent', '#0969da');
    const muted = colour('--muted', '#5b6474');
    const grid = colour('--line', '#d9dde4');
    const height = spark ? 40 : 220;
    const width = () => Math.max(120, target.clientWidth);
    const series = { label: 'New hosts', stroke: accent, fill: accent + '40', width: spark ? 1.5 : 1, points: { show: false } };
    if (!spark) series.paths = uPlot.paths.bars({ size: [0.8, 24] });
    const options = {
      width: width(),
      height,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: !spark },
      cursor: spark ? { show: false } : {},
      scales: {
        // Bars are centred on their day: half a day of room on either side keeps the first and last whole.
        x: { time: true, range: spark ? undefined : (u, min, max) => [min - 43200, max + 43200] },
        y: { range: (u, min, max) => [0, Math.max(1, max)] },
      },
      axes: spark
        ? [{ show: false }, { show: false }]
        : [
            { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid } },
            { stroke: muted, grid: { stroke: grid }, ticks: { stroke: grid } },
          ],
      series: [{ label: 'Day (UTC)' }, series],
    };
    const plot = new uPlot(options, [xs, values], target);
    new ResizeObserver(() => plot.setSize({ width: width(), height })).observe(target);
  }
  if (window.uPlot) for (const figure of document.querySelectorAll('[data-chart]')) drawChart(figure);

  const live = document.getElementById('live');
  if (live && window.EventSource) {
    const list = live.querySelector('ol');
    const status = live.querySelector('[data-live-status]');
    let after = live.dataset.after;
    let refused = 0;
    const connect = () => {
      const url = new URL('/app/stream', location.href);
      if (after) url.searchParams.set('last_event_id', after);
      const stream = new EventSource(url);
      stream.addEventListener('ready', (event) => {
        // Where this stream starts: a stream opened again later resumes here, with nothing recorded meanwhile lost.
        after = event.lastEventId;
        refused = 0;
        status.textContent = 'live';
      });
      stream.addEventListener('error', () => {
        status.textContent = 'reconnecting';
        // Refused (signed out, too many streams) rather than cut: EventSource gives up, so ask again later, a
        // few times; a reload starts over.
        if (stream.readyState === EventSource.CLOSED) {
          if (++refused <= 20) setTimeout(connect, 15000);
          else status.textContent = 'stopped: reload the page';
        }
      });
      stream.addEventListener('host', (event) => {
        after = event.lastEventId;
        const host = JSON.parse(event.data);
        const item = document.createElement('li');
        item.className = 'fresh';
        const link = document.createElement('a');
        link.href = '/app/hosts/' + encodeURIComponent(host.host);
        link.textContent = host.host;
        const where = document.createElement('span');
        where.className = 'muted';
        where.textContent = ' ' + host.domain + ' · ' + host.first_seen_at.replace('T', ' ').slice(0, 16) + ' UTC';
        item.append(link, where);
        list.prepend(item);
        while (list.children.length > 100) list.lastElementChild.remove();
        live.querySelector('[data-live-empty]')?.remove();
        const count = document.querySelector('section[data-platform="' + CSS.escape(host.platform) + '"] [data-new-24h]');
        if (count) count.textContent = (Number(count.textContent.replace(/\\D/g, '')) + 1).toLocaleString('en-US');
      });
    };
    connect();
  }

  // A filter left empty or at its default means no filter: it stays out of the URL, so links stay short.
  for (const form of document.querySelectorAll('form[method=get]')) {
    form.addEventListener('submit', () => {
      for (const field of form.elements) {
        const fallback = field.selectedOptions?.[0]?.hasAttribute('data-default');
        if (field.name && (field.value === '' || fallback)) field.disabled = true;
      }
    });
  }

  // Back to a page whose form was sent: its fields as they were, none left disabled.
  addEventListener('pageshow', () => {
    for (const field of document.querySelectorAll('form [disabled]')) field.disabled = false;
  });

  const search = document.querySelector('form[data-live-search]');
  if (search) {
    const input = search.querySelector('input[name=q]');
    let timer;
    let pending;
    const run = async () => {
      const q = input.value.trim();
      const url = new URL(search.action);
      if (q) url.searchParams.set('q', q);
      history.replaceState(null, '', url);
      // Only the answer for the text in the box may land: the one asked before it is cancelled.
      pending?.abort();
      pending = new AbortController();
      try {
        const response = await fetch(url, { signal: pending.signal, headers: { accept: 'text/html' } });
        const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('results');
        if (fresh) document.getElementById('results').replaceWith(fresh);
      } catch (error) {
        if (error.name === 'AbortError') return;
        const results = document.getElementById('results');
        results.textContent = 'The search failed: ' + error.message + '. Press Search to try again.';
      }
    };
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(run, 250);
    });
  }
})();
`;
