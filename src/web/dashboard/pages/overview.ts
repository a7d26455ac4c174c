import { type Html, html } from '../../html.js';
import type { CtLogRow } from '../../../ct/ct-logs.repository.js';
import type { WorkerStatusDto } from '../../../discovery/dto/scan.dto.js';
import type { SourceHealthDto } from '../../../discovery/dto/source-health.dto.js';
import type { FeedHostDto } from '../../../hosts/dto/host.dto.js';
import type { PlatformDto } from '../../../platforms/dto/platform.dto.js';
import type { DayCount } from '../../../stats/stats.repository.js';
import { dayChart } from './chart.js';
import { count, hostLink, noKeys, page, type Viewer, when } from './page.js';
import { pageUrl } from './pager.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

export interface OverviewView {
  platforms: PlatformDto[];
  days: Map<string, DayCount[]>;
  worker: WorkerStatusDto;
  logs: CtLogRow[];
  /** Each scan source over the last days (SourceHealthService). */
  sources: SourceHealthDto[];
  recent: FeedHostDto[];
  /** Where the live list's stream starts when the list is empty (the stream's start when the page was made). */
  tail: string;
}

export function overviewPage(viewer: Viewer, view?: OverviewView): string {
  if (!view) return page('Overview', viewer, '/app', noKeys());
  // prettier-ignore
  return page(
    'Overview',
    viewer,
    '/app',
    html`<h1>Overview</h1>
      <div class="cards">
        ${view.platforms.map((p) => platformCard(p, view.days.get(p.slug) ?? []))}
      </div>
      <div class="columns">
        ${liveSection(view)}
        ${workerSection(view)}
      </div>`,
  );
}

/** A platform's figures and its new hosts of the last days. */
function platformCard(p: PlatformDto, days: DayCount[]): Html {
  // prettier-ignore
  return html`<section class="card" data-platform="${p.slug}">
              <h2><a href="${pageUrl('/app/programs', { platform: p.slug })}">${p.name}</a></h2>
              <dl class="figures">
                <div>
                  <dt>Programs</dt>
                  <dd>${count(p.domain_count)}</dd>
                </div>
                <div>
                  <dt>Hosts</dt>
                  <dd>${count(p.subdomain_count)}</dd>
                </div>
                <div>
                  <dt>New in 24 h</dt>
                  <dd data-new-24h>${count(p.new_24h)}</dd>
                </div>
              </dl>
              ${dayChart('spark', days, p.name)}
            </section>`;
}

/** The hosts found in the last 24 hours; the script adds new ones as the stream tells of them. */
function liveSection(view: OverviewView): Html {
  const newest = view.recent[0];
  // prettier-ignore
  return html`<section
          id="live"
          data-after="${newest ? `${newest.first_seen_at}_${newest.id}` : view.tail}"
          aria-labelledby="live-title"
        >
          <h2 id="live-title">New hosts <span class="badge" data-live-status>as of loading</span></h2>
          <p class="muted">Hosts appear here as scans and the CT followers record them.</p>
          <ol class="live" aria-live="polite">
            ${view.recent.map(
              (h) =>
                html`<li>${hostLink(h.host)} <span class="muted">${h.domain} · ${when(h.first_seen_at)}</span></li>`,
            )}
          </ol>
          ${view.recent.length ? '' : html`<p class="muted" data-live-empty>No host was found in the last 24 hours.</p>`}
        </section>`;
}

/** What the worker is doing, its last error, and how far the CT followers lag. */
function workerSection(view: OverviewView): Html {
  const { health, cycle } = view.worker;
  // prettier-ignore
  return html`<section aria-labelledby="worker-title">
          <h2 id="worker-title">Worker</h2>
          <dl class="figures">
            <div>
              <dt>Running scans</dt>
              <dd data-running>${count(health.running_scans)}</dd>
            </div>
            <div>
              <dt>Scans in 30 min</dt>
              <dd>${count(health.scanned_30m)}</dd>
            </div>
            <div>
              <dt>Errors in 30 min</dt>
              <dd class="${health.errors_30m ? 'bad' : ''}">${count(health.errors_30m)}</dd>
            </div>
            <div>
              <dt>Queued</dt>
              <dd>${count(cycle.queued_domains)}</dd>
            </div>
            <div>
              <dt>Due</dt>
              <dd>${count(cycle.due_domains)}</dd>
            </div>
            <div>
              <dt>Sweep coverage</dt>
              <dd>${Math.round(cycle.sweep_coverage * 100)}%</dd>
            </div>
          </dl>
          ${
            health.last_error
              ? html`<p class="muted">Last error ${when(health.last_error_at)}: ${health.last_error.slice(0, 300)}</p>`
              : ''
          }
          ${view.logs.length ? ctFollowers(view.logs) : ''}
          ${view.sources.length ? scanSources(view.sources) : ''}
        </section>`;
}

/** The CT logs followed and how far behind each is. */
function ctFollowers(logs: CtLogRow[]): Html {
  const lag = logs.reduce((most, log) => Math.max(most, log.lag ?? 0), 0);
  // prettier-ignore
  return html`<h3>CT followers <span class="badge ${lag > 10_000 ? 'warn' : ''}">lag ${count(lag)}</span></h3>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Log</th>
                        <th scope="col">Behind</th>
                        <th scope="col">Last read</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${logs.map(
                        (log) =>
                          html`<tr>
                            <td class="url">${log.url}</td>
                            <td>${log.lag === null ? '—' : count(log.lag)}</td>
                            <td>
                              ${when(log.last_polled_at)}${log.last_error ? html` <span class="badge warn">error</span>` : ''}
                            </td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`;
}

/** What each scan source did over the last days: how often it worked, how long it took, what it found. */
function scanSources(sources: SourceHealthDto[]): Html {
  // prettier-ignore
  return html`<h3>Sources <span class="muted">last 7 days</span></h3>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Source</th>
                        <th scope="col">Scans</th>
                        <th scope="col">Median</th>
                        <th scope="col">Names</th>
                        <th scope="col">New</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${sources.map(
                        (s) =>
                          html`<tr data-source="${s.source}">
                            <td>
                              ${s.source}${s.configured ? '' : html` <span class="badge">off</span>`}${s.flooding ? html` <span class="badge warn" title="Most of its names do not resolve">floods</span>` : ''}
                            </td>
                            <td>
                              ${count(s.successes)}${s.failures ? html` <span class="badge warn" title="${s.last_failure ?? ''}">${count(s.failures)} failed</span>` : ''}
                            </td>
                            <td>${s.ms_median === null ? '—' : `${count(s.ms_median)} ms`}</td>
                            <td>${count(s.names)}</td>
                            <td>${count(s.new)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>`;
}
