import { type Html, html } from '../../html.js';
import type { DomainHostDto, SearchHostDto } from '../../../hosts/dto/host.dto.js';
import { domainLink, hostLink, when } from './page.js';

/** Knowledge of a host in a few words: addresses, the HTTP answer, and flags worth a look. */
function knowledge(host: Pick<DomainHostDto, 'dns' | 'http' | 'takeover' | 'wildcard' | 'in_scope'>): Html {
  const dns = host.dns;
  const addresses = dns
    ? dns.status === 'resolved'
      ? [...dns.a, ...dns.aaaa].slice(0, 2).join(', ')
      : dns.status
    : '';
  const http = host.http?.listening
    ? `${host.http.status ?? ''} ${host.http.title ?? ''}`.trim() || `${host.http.scheme ?? ''}:${host.http.port ?? ''}`
    : '';
  return html`<td class="addr">${addresses}</td>
    <td class="http">${http.slice(0, 80)}</td>
    <td>
      ${host.takeover ? html`<span class="badge danger">takeover ${host.takeover.service}</span>` : ''}
      ${host.wildcard ? html`<span class="badge">wildcard</span>` : ''}
      ${host.in_scope === false ? html`<span class="badge warn">out of scope</span>` : ''}
    </td>`;
}

export function hostTable(hosts: (DomainHostDto | SearchHostDto)[], ofDomain: boolean): Html {
  if (!hosts.length) return html`<p class="muted">No host matches.</p>`;
  return html`<div class="scroll">
    <table class="hosts">
      <thead>
        <tr>
          <th scope="col">Host</th>
          ${ofDomain ? '' : html`<th scope="col">Domain</th>`}
          <th scope="col">First seen</th>
          <th scope="col">State</th>
          <th scope="col">Addresses</th>
          <th scope="col">HTTP</th>
          <th scope="col">Flags</th>
        </tr>
      </thead>
      <tbody>
        ${hosts.map(
          (h) =>
            html`<tr>
              <td>${hostLink(h.host)}</td>
              ${'domain' in h && !ofDomain ? html`<td>${domainLink(h.domain)}</td>` : ''}
              <td>${when(h.first_seen_at)}</td>
              <td>${h.is_active ? 'active' : html`<span class="muted">inactive</span>`}</td>
              ${knowledge(h)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
