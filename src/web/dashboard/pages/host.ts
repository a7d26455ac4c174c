import { type Html, html } from '../../html.js';
import type { HostEventDto } from '../../../events/dto/event.dto.js';
import type {
  DnsAnswerDto,
  HttpChangeDto,
  ScopeChangeDto,
  TakeoverDto,
  WildcardZoneDto,
} from '../../../hosts/model/knowledge.dto.js';
import type { HostDetailDto } from '../../../hosts/dto/host.dto.js';
import { domainLink, noKeys, page, type Viewer, when } from './page.js';

// The markup marked `prettier-ignore` keeps the indentation it has in the page it belongs to: Prettier would
// indent it by where it sits in this file, and that whitespace is part of the HTML sent.

/** One change of a host's history in words. */
function change(event: HostEventDto): string {
  const after = (event.after ?? {}) as Partial<
    DnsAnswerDto & HttpChangeDto & TakeoverDto & WildcardZoneDto & ScopeChangeDto
  >;
  switch (event.type) {
    case 'host_new':
      return 'first seen';
    case 'host_back':
      return 'seen again';
    case 'host_gone':
      return 'no longer seen';
    case 'dns_changed':
      return `DNS ${after.status ?? 'changed'}: ${[...(after.a ?? []), ...(after.aaaa ?? []), ...(after.cname ?? [])].join(', ') || 'no address'}`;
    case 'http_changed':
      return after.listening ? `HTTP ${after.status ?? ''} ${after.title ?? ''}` : 'HTTP: nothing listens';
    case 'takeover_candidate':
      return `takeover candidate: ${after.service ?? ''} (${after.evidence ?? ''})`;
    case 'wildcard_detected':
      return `under the wildcard ${after.zone ?? ''}`;
    case 'scope_changed':
      return after.in_scope ? 'back in scope' : 'out of scope';
  }
}

/** GET /hosts/{host}'s answer (sources as the query gives them). */
export type HostDetail = Omit<HostDetailDto, 'sources'> & { sources: string[] };

export function hostPage(viewer: Viewer, name: string, host?: HostDetail): string {
  if (!host) return page(name, viewer, undefined, noKeys());
  const { takeover } = host;
  // prettier-ignore
  return page(
    host.host,
    viewer,
    undefined,
    html`<h1>${host.host}</h1>
      <p class="muted">
        ${domainLink(host.domain)} · ${host.platform} · ${host.is_active ? 'active' : 'inactive'}
        ${host.wildcard ? html` · <span class="badge">wildcard</span>` : ''}
        ${host.in_scope ? '' : html` · <span class="badge warn">out of scope</span>`}
      </p>
      ${
        takeover
          ? html`<p class="notice error" role="status">
              Takeover candidate: ${takeover.service} (${takeover.status}), ${takeover.evidence}.
            </p>`
          : ''
      }
      ${recordSection(host)}
      ${dnsSection(host)}
      ${httpSection(host)}
      <section>
        <h2>History</h2>
        <ol class="history">
          ${host.history.map((e) => html`<li><time datetime="${e.at}">${when(e.at)}</time> ${change(e)}</li>`)}
        </ol>
      </section>`,
  );
}

/** When the host was seen and where it was found. */
function recordSection(host: HostDetail): Html {
  // prettier-ignore
  return html`<section>
        <h2>Record</h2>
        <dl class="pairs">
          <dt>First seen</dt>
          <dd>${when(host.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>${when(host.last_seen_at)}</dd>
          <dt>Sources</dt>
          <dd>${host.sources.join(', ')}</dd>
        </dl>
      </section>`;
}

/** The host's last DNS answer. */
function dnsSection({ dns }: HostDetail): Html {
  // prettier-ignore
  return html`<section>
        <h2>DNS</h2>
        ${
          dns
            ? html`<dl class="pairs">
                <dt>Answer</dt>
                <dd>${dns.status} <span class="muted">at ${when(dns.resolved_at)}</span></dd>
                <dt>A</dt>
                <dd>${dns.a.join(', ') || '—'}</dd>
                <dt>AAAA</dt>
                <dd>${dns.aaaa.join(', ') || '—'}</dd>
                <dt>CNAME</dt>
                <dd>${dns.cname.join(' → ') || '—'}</dd>
              </dl>`
            : html`<p class="muted">Not resolved yet.</p>`
        }
      </section>`;
}

/** The host's last HTTP answer, its certificate if any. */
function httpSection({ http }: HostDetail): Html {
  // prettier-ignore
  return html`<section>
        <h2>HTTP</h2>
        ${
          http
            ? http.listening
              ? html`<dl class="pairs">
                  <dt>Answer</dt>
                  <dd>${http.status ?? '—'} on ${http.scheme}:${http.port}</dd>
                  <dt>Title</dt>
                  <dd>${http.title ?? '—'}</dd>
                  <dt>Server</dt>
                  <dd>${http.server ?? '—'}</dd>
                  <dt>Final URL</dt>
                  <dd class="url">${http.final_url ?? '—'}</dd>
                  <dt>Length</dt>
                  <dd>${http.content_length ?? '—'}</dd>
                  ${
                    http.tls
                      ? html`<dt>Certificate</dt>
                          <dd>${http.tls.subject}, by ${http.tls.issuer}, until ${when(http.tls.not_after)}</dd>`
                      : ''
                  }
                  <dt>Probed</dt>
                  <dd>${when(http.probed_at)}</dd>
                </dl>`
              : html`<p class="muted">Nothing listens (probed ${when(http.probed_at)}).</p>`
            : html`<p class="muted">Not probed yet.</p>`
        }
      </section>`;
}
