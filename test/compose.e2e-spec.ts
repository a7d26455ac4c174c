import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadEnvironment } from '../src/config/environment.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

/** Compose's ${VAR:-default} substitution, with the defaults (no Docker engine runs here). */
const substitute = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/**
 * The container set-up, checked by reading it: no Docker engine runs here, so this is what keeps the compose
 * file and the Dockerfile in step with the service's configuration.
 */
describe('docker-compose.yml and Dockerfile', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as Json;
  const env = (service: string) =>
    Object.fromEntries(
      Object.entries(compose.services[service].environment as Record<string, string>).map(([k, v]) => [
        k,
        substitute(String(v)),
      ]),
    );

  it('has PostgreSQL, one api and one worker service, and a volume for the database', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'postgres', 'worker']);
    expect(compose.services.postgres.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes)).toEqual(['pgdata']);
    expect(compose.services.postgres.healthcheck.test.join(' ')).toMatch(/pg_isready/);
  });

  it('runs the api with the worker off and the worker with HTTP off, both from the one image', () => {
    expect(env('api')).toMatchObject({ WORKER: 'off' });
    expect(env('worker')).toMatchObject({ HTTP: 'off', WORKER: 'on' });
    for (const service of ['api', 'worker']) {
      expect(compose.services[service]).toMatchObject({ build: '.', image: 'subdomain-monitor' });
      expect(compose.services[service].depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(env(service).DATABASE_URL).toBe('postgres://monitor:monitor@postgres:5432/monitor');
    }
  });

  it('publishes the API port only, and health-checks both on /health/ready', () => {
    expect(compose.services.api.ports).toEqual(['3000:3000']);
    expect(compose.services.worker.ports).toBeUndefined();
    for (const service of ['api', 'worker']) {
      expect(compose.services[service].healthcheck.test.join(' ')).toContain(
        `http://127.0.0.1:${env(service).PORT}/health/ready`,
      );
    }
  });

  it('gives each service a configuration the service accepts, and time to stop gracefully', () => {
    for (const service of ['api', 'worker']) {
      const config = loadEnvironment(env(service));
      expect(config.HOST).toBe('0.0.0.0');
      const grace = Number(/^(\d+)s$/.exec(compose.services[service].stop_grace_period)?.[1]);
      expect(grace).toBeGreaterThan(config.SHUTDOWN_TIMEOUT);
    }
  });

  it('builds in two stages and runs production dependencies as an unprivileged user', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci\b/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/\/health\/ready/);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
  });
});
