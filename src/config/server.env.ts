import type { OnOff } from './env-transforms.js';
import { IntVar, ListVar, OnOffVar, StringVar } from './env-var.decorator.js';

/** Server and processes: where the API listens, which roles a process plays, and its HTTP limits. */
export class ServerEnvironment {
  @IntVar({ default: 3000, min: 0, max: 65535, description: 'TCP port the HTTP API listens on.' })
  PORT: number;

  @StringVar({
    default: '127.0.0.1',
    minLength: 1,
    description: 'Interface the HTTP API binds to (0.0.0.0 to listen on every interface).',
  })
  HOST: string;

  @OnOffVar({
    default: 'on',
    description:
      'Serve the API in this process: on or off (off for worker-only processes, which still answer /health/live and /health/ready on PORT).',
  })
  HTTP: OnOff;

  @OnOffVar({
    default: 'on',
    description: 'Run the scheduled scan worker in this process: on or off (off for API-only processes).',
  })
  WORKER: OnOff;

  @OnOffVar({
    default: 'on',
    description: 'Serve Swagger UI at /docs: on or off (the OpenAPI document is always at /api/v1/openapi.json).',
  })
  DOCS: OnOff;

  @StringVar({
    unset: '(derived from HOST and PORT)',
    matches: /^https?:\/\/\S+$/,
    message: 'PUBLIC_URL must be an http:// or https:// URL',
    maxLength: 2048,
    description:
      'Public base URL of the service (e.g. https://monitor.example.com): the OpenAPI document names its servers ' +
      'PUBLIC_URL/api/v1 and PUBLIC_URL/api/public/v1 (unset: the relative /api/v1 and /api/public/v1), and ' +
      'sign-in links start with it (unset: http://HOST:PORT), and webhook messages for people link back to it ' +
      '(unset: no link).',
  })
  PUBLIC_URL?: string;

  @StringVar({
    default: 'off',
    lowerCase: true,
    matches: /^(off|[1-9]|([0-9a-f.:]+(\/\d{1,3})?)(\s*,\s*[0-9a-f.:]+(\/\d{1,3})?)*)$/,
    message: 'TRUST_PROXY must be off, a number of hops from 1 to 9, or a comma list of proxy addresses or CIDRs',
    description:
      'Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: off, a number of proxy hops in front of the service (1 for one proxy), or a comma list of proxy addresses or CIDRs. Set it behind a TLS-terminating proxy, so the account page marks its cookies Secure and slows sign-ins per real client address.',
  })
  TRUST_PROXY: string;

  @ListVar({
    matches: /^(\*|https?:\/\/[^/\s]+)$/,
    message: 'CORS_ORIGINS must be * or a comma list of origins like https://app.example.com',
    description:
      'Browser origins allowed to call the API cross-origin, a comma list like https://app.example.com, or * for any. Unset: CORS is off.',
  })
  CORS_ORIGINS?: string[];

  @IntVar({
    default: 30,
    min: 1,
    max: 3600,
    description:
      'Seconds a client has to send a whole request, headers and body; a slower one is answered 408 request_timeout and disconnected.',
  })
  REQUEST_TIMEOUT_SECONDS: number;

  @IntVar({
    default: 72,
    min: 1,
    max: 3600,
    description: 'Seconds an idle keep-alive connection stays open for its next request.',
  })
  KEEP_ALIVE_TIMEOUT_SECONDS: number;

  @IntVar({
    default: 4096,
    min: 16,
    max: 1_000_000,
    description:
      'Most open HTTP connections one process accepts (streams included); further connections are closed at once.',
  })
  HTTP_MAX_CONNECTIONS: number;

  @IntVar({
    default: 25,
    min: 0,
    max: 3600,
    description:
      'Seconds a stopping process (SIGTERM) waits for in-flight requests, streams, webhook deliveries and scan slices before it closes them.',
  })
  SHUTDOWN_TIMEOUT: number;
}
