import { ApiProperty } from '@nestjs/swagger';

export const DNS_DESCRIPTION =
  'A DNS answer: status (resolved, nxdomain, servfail, timeout), the A and AAAA addresses (sorted) and the CNAME ' +
  'chain in order';

/** A DNS answer as a change keeps it (and as host rows show it, with resolved_at). */
export class DnsAnswerDto {
  @ApiProperty({ enum: ['resolved', 'nxdomain', 'servfail', 'timeout'] }) status: string;
  @ApiProperty({ type: 'string', isArray: true, example: ['192.0.2.10'] }) a: string[];
  @ApiProperty({ type: 'string', isArray: true, example: [] }) aaaa: string[];
  @ApiProperty({ type: 'string', isArray: true, example: ['shop.example.net'] }) cname: string[];
}

/** What a host resolved to when last asked; null on a host never resolved (RESOLVE=off, or not yet). */
export class HostDnsDto extends DnsAnswerDto {
  @ApiProperty({ type: 'string', format: 'date-time', description: 'When it was last asked (UTC)' })
  resolved_at: string;
}

/** A takeover candidate: the service the host's alias chain dangles onto, the list's verdict, and the evidence. */
export class TakeoverDto {
  @ApiProperty({ example: 'Microsoft Azure' }) service: string;

  @ApiProperty({
    description: 'The verdict of the "Can I take over XYZ?" list for the service: Vulnerable, Edge case, …',
    example: 'Vulnerable',
  })
  status: string;

  @ApiProperty({ description: 'What matched: NXDOMAIN (the alias dangles)', example: 'NXDOMAIN' }) evidence: string;
}

/** The TLS certificate a probe was served. */
export class TlsCertificateDto {
  @ApiProperty({ example: 'CN=shop.example.com' }) subject: string;
  @ApiProperty({ example: "C=US, O=Let's Encrypt, CN=R11" }) issuer: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) not_after: string;
}

/** What the probe of a host's web server found (PROBE=on). */
export class HttpProbeDto {
  @ApiProperty({ description: 'Whether any of PROBE_PORTS answered HTTP; the rest is null when none did' })
  listening: boolean;

  @ApiProperty({ type: 'string', enum: ['http', 'https'], nullable: true }) scheme: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 443 }) port: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Status of the last answer', example: 200 })
  status: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'URL after at most PROBE_MAX_REDIRECTS redirects' })
  final_url: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: '<title>, decoded, at most 200 characters' })
  title: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The Server header' }) server: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Content-Length, when sent' })
  content_length: number | null;

  @ApiProperty({ type: TlsCertificateDto, nullable: true, description: 'null over http' })
  tls: TlsCertificateDto | null;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When it was last probed (UTC)' })
  probed_at: string;
}

/** What an http_changed event keeps on either side. */
export class HttpChangeDto {
  @ApiProperty() listening: boolean;
  @ApiProperty({ type: 'string', enum: ['http', 'https'], nullable: true }) scheme: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) port: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) status: number | null;
  @ApiProperty({ type: 'string', nullable: true }) title: string | null;
}

/** A zone found to answer every name under it (wildcard_detected). */
export class WildcardZoneDto {
  @ApiProperty({ example: '*.dev.example.com' }) zone: string;

  @ApiProperty({ type: 'string', isArray: true, example: ['192.0.2.80'], description: 'What random labels resolve to' })
  answers: string[];
}

/** Whether a host is in scope, on either side of a scope_changed event. */
export class ScopeChangeDto {
  @ApiProperty({ description: 'false when an exclusion rule of its root domain names the host' }) in_scope: boolean;
}
