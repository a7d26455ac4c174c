import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsInt, Max, Min } from 'class-validator';
import type { OnOff } from './env-transforms.js';
import { EnvVar, IntVar, OnOffVar } from './env-var.decorator.js';

const toPorts = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .map((v) => (/^\d{1,5}$/.test(v) ? Number(v) : v))
    : value;

const PORTS_MESSAGE = 'PROBE_PORTS must be a comma list of ports (1-65535)';

/** Host knowledge: whether hosts are resolved, and the HTTP probe of those that resolve. */
export class IntelEnvironment {
  @OnOffVar({
    default: 'off',
    description:
      'Check liveness: on also resolves each name found and every known host (A, AAAA, CNAME); off trusts the sources.',
  })
  RESOLVE: OnOff;

  @OnOffVar({
    default: 'off',
    description:
      'Probe the web server of every host that resolves (status, title, Server, TLS certificate) on PROBE_PORTS.',
  })
  PROBE: OnOff;

  @EnvVar(
    {
      default: [443, 80],
      description: 'Ports the probe tries in order, a comma list: 80 as http, 443 as https, others https then http.',
    },
    Transform(toPorts),
    IsInt({ each: true, message: PORTS_MESSAGE }),
    Max(65535, { each: true, message: PORTS_MESSAGE }),
    Min(1, { each: true, message: PORTS_MESSAGE }),
    ArrayNotEmpty({ message: 'PROBE_PORTS must list at least one port' }),
  )
  PROBE_PORTS: number[];

  @IntVar({ default: 20, min: 1, max: 500, description: 'Hosts probed at once per process.' })
  PROBE_CONCURRENCY: number;

  @IntVar({
    default: 5000,
    min: 100,
    max: 60_000,
    description: 'Milliseconds one probe request may take, connection and body included.',
  })
  PROBE_TIMEOUT_MS: number;

  @IntVar({ default: 3, min: 0, max: 10, description: 'Redirects a probe follows at most.' })
  PROBE_MAX_REDIRECTS: number;

  @OnOffVar({
    default: 'off',
    description:
      'Probe loopback, private, link-local and other special-use addresses too. Off: a target whose name resolves into your own network is never reached.',
  })
  PROBE_PRIVATE: OnOff;
}
