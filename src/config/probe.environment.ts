import { Transform } from 'class-transformer';
import { ArrayNotEmpty, IsInt, Max, Min } from 'class-validator';
import { EnvVar } from './env-var.decorator.js';
import { type OnOff, OnOffVar, toInt } from './env-transforms.js';

const toPorts = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .map((v) => (/^\d{1,5}$/.test(v) ? Number(v) : v))
    : value;

/** The HTTP probe's variables (the intel wing); Environment composes them. */
export class ProbeEnvironment {
  @OnOffVar(
    'Probe the web server of every host that resolves (status, title, Server, TLS certificate) on PROBE_PORTS.',
    'off',
  )
  PROBE: OnOff = 'off';

  @EnvVar('Ports the probe tries in order, a comma list: 80 as http, 443 as https, others https then http.', '443,80')
  @Transform(toPorts)
  @ArrayNotEmpty({ message: 'PROBE_PORTS must list at least one port' })
  @Min(1, { each: true, message: 'PROBE_PORTS must be a comma list of ports (1-65535)' })
  @Max(65535, { each: true, message: 'PROBE_PORTS must be a comma list of ports (1-65535)' })
  @IsInt({ each: true, message: 'PROBE_PORTS must be a comma list of ports (1-65535)' })
  PROBE_PORTS: number[] = [443, 80];

  @EnvVar('Hosts probed at once per process.', '20')
  @Transform(toInt)
  @Min(1)
  @Max(500)
  @IsInt()
  PROBE_CONCURRENCY = 20;

  @EnvVar('Milliseconds one probe request may take, connection and body included.', '5000')
  @Transform(toInt)
  @Min(100)
  @Max(60_000)
  @IsInt()
  PROBE_TIMEOUT_MS = 5000;

  @EnvVar('Redirects a probe follows at most.', '3')
  @Transform(toInt)
  @Min(0)
  @Max(10)
  @IsInt()
  PROBE_MAX_REDIRECTS = 3;

  @OnOffVar(
    'Probe loopback, private, link-local and other special-use addresses too. Off: a target whose name resolves into your own network is never reached.',
    'off',
  )
  PROBE_PRIVATE: OnOff = 'off';
}
