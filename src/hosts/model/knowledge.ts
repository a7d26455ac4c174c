/** What is kept of a host beside its name (host_intel): the shapes the host store writes and the reads render. */

/** What a probe read of a host's web server, as kept (host_intel) and shown (`http`). */
export interface HttpProbe {
  /** Whether any probed port answered HTTP; the fields below are null when none did. */
  listening: boolean;
  scheme: 'http' | 'https' | null;
  port: number | null;
  status: number | null;
  final_url: string | null;
  title: string | null;
  server: string | null;
  content_length: number | null;
  tls_subject: string | null;
  tls_issuer: string | null;
  tls_not_after: string | null;
}

/** A host whose alias points at a service that may let someone else claim the name. */
export interface Takeover {
  service: string;
  /** The list's verdict for the service: Vulnerable, Edge case, Not vulnerable… */
  status: string;
  /** What matched: NXDOMAIN (the alias dangles), or the service's error-page text. */
  evidence: string;
  /** Only a service the list marks vulnerable raises the takeover_candidate change. */
  vulnerable: boolean;
}
