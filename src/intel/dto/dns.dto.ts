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
