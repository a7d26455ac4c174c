import { composeEnvironment, envVarDocs, IntVar } from './env-var.decorator.js';
import { ConfigError, Environment, loadEnvironment } from './environment.js';

describe('environment', () => {
  it('has the documented defaults', () => {
    const env = loadEnvironment({});
    expect(env).toMatchObject({ PORT: 3000, HOST: '127.0.0.1', DATA_DIR: './data', LOG_LEVEL: 'info', WORKER: 'on' });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('reads and converts values', () => {
    const env = loadEnvironment({
      PORT: '8080',
      LOG_LEVEL: 'DEBUG',
      DATABASE_URL: 'postgres://u:p@db:5432/sm',
      WORKER: 'off',
    });
    expect(env).toMatchObject({
      PORT: 8080,
      LOG_LEVEL: 'debug',
      DATABASE_URL: 'postgres://u:p@db:5432/sm',
      WORKER: 'off',
    });
  });

  it('reads the scan settings', () => {
    const env = loadEnvironment({
      SCAN_SOURCES: 'crtsh, DNS',
      DNS_SERVERS: '127.0.0.1:5353,[::1]:53',
      WORKER_CRON: '*/5 * * * * *',
    });
    expect(env).toMatchObject({
      SCAN_SOURCES: ['crtsh', 'dns'],
      DNS_SERVERS: ['127.0.0.1:5353', '[::1]:53'],
      WORKER_CRON: '*/5 * * * * *',
    });
  });

  it('reads CORS origins and the shutdown timeout', () => {
    expect(loadEnvironment({}).CORS_ORIGINS).toBeUndefined();
    expect(loadEnvironment({}).SHUTDOWN_TIMEOUT).toBe(25);
    const env = loadEnvironment({
      CORS_ORIGINS: 'https://App.example.com, http://localhost:5173',
      SHUTDOWN_TIMEOUT: '5',
    });
    expect(env).toMatchObject({
      CORS_ORIGINS: ['https://app.example.com', 'http://localhost:5173'],
      SHUTDOWN_TIMEOUT: 5,
    });
    expect(loadEnvironment({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
  });

  it('runs both roles by default, and refuses a process with neither', () => {
    expect(loadEnvironment({})).toMatchObject({ HTTP: 'on', WORKER: 'on' });
    expect(loadEnvironment({ HTTP: 'OFF' })).toMatchObject({ HTTP: 'off', WORKER: 'on' });
    expect(() => loadEnvironment({ HTTP: 'off', WORKER: 'off' })).toThrow(
      'Invalid configuration: HTTP=off and WORKER=off leave the process nothing to do',
    );
  });

  it('reads replica URLs as a list', () => {
    const env = loadEnvironment({
      DATABASE_URL: 'postgres://db/x',
      DATABASE_REPLICA_URLS: 'postgres://r1/x, postgres://r2/x',
    });
    expect(env.DATABASE_REPLICA_URLS).toEqual(['postgres://r1/x', 'postgres://r2/x']);
  });

  it('takes TRUST_PROXY as off, hops, or proxy addresses', () => {
    expect(loadEnvironment({}).TRUST_PROXY).toBe('off');
    expect(loadEnvironment({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe('2');
    expect(loadEnvironment({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.5' }).TRUST_PROXY).toBe('10.0.0.0/8, 192.168.1.5');
  });

  it('treats an empty variable as unset', () => {
    expect(loadEnvironment({ PORT: '' }).PORT).toBe(3000);
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT="abc": PORT must be an integer number'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT="70000": PORT must not be greater than 65535'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL="loud": LOG_LEVEL must be one of the following values'],
    [{ WORKER: 'maybe' }, 'Invalid configuration: WORKER="maybe"'],
    [{ WORKER_CRON: '* * *' }, 'Invalid configuration: WORKER_CRON="* * *": WORKER_CRON must be a cron expression'],
    [{ WORKER_CRON: '99 * * * *' }, 'Invalid configuration: WORKER_CRON="99 * * * *"'],
    [
      { SCAN_SOURCES: 'crtsh,nmap' },
      'Invalid configuration: SCAN_SOURCES="crtsh,nmap": SCAN_SOURCES must be a comma list',
    ],
    [{ DNS_SERVERS: '1.1.1.1,not a server' }, 'Invalid configuration: DNS_SERVERS='],
    [{ RESOLVE: 'yes' }, 'Invalid configuration: RESOLVE="yes"'],
    [
      { SYNC_SOURCES: 'json:https://x.test/a.json' },
      'Invalid configuration: SYNC_SOURCES: SYNC_SOURCES must be a comma list of format:URL',
    ],
    [{ SYNC_CRON: 'hourly' }, 'Invalid configuration: SYNC_CRON="hourly"'],
    [{ CORS_ORIGINS: 'https://a.example/path' }, 'Invalid configuration: CORS_ORIGINS='],
    [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS must be * or a comma list of origins'],
    [{ SHUTDOWN_TIMEOUT: '-1' }, 'Invalid configuration: SHUTDOWN_TIMEOUT="-1"'],
    [{ TRUST_PROXY: 'on' }, 'Invalid configuration: TRUST_PROXY="on": TRUST_PROXY must be off, a number of hops'],
    [{ TRUST_PROXY: '10.0.0.0/8, proxy.local' }, 'Invalid configuration: TRUST_PROXY='],
    [
      { DATABASE_URL: 'postgres://db/x', DATABASE_REPLICA_URLS: 'postgres://r1/x,mysql://r2/x' },
      'Invalid configuration: DATABASE_REPLICA_URLS: DATABASE_REPLICA_URLS must be a comma list of postgres://',
    ],
    [
      { DATABASE_REPLICA_URLS: 'postgres://r1/x' },
      'Invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (replicas of a PostgreSQL server)',
    ],
  ])('stops on %j with one line naming the variable', (env, message) => {
    expect(() => loadEnvironment(env)).toThrow(ConfigError);
    expect(() => loadEnvironment(env)).toThrow(message);
  });

  it('names a bad DATABASE_URL without echoing it, since it may hold a password', () => {
    const attempt = () => loadEnvironment({ DATABASE_URL: 'mysql://root:hunter2@db/x' });
    expect(attempt).toThrow(
      'Invalid configuration: DATABASE_URL: DATABASE_URL must be a postgres:// or postgresql:// URL',
    );
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('marks the variables that carry credentials as secrets, and never echoes one', () => {
    const secrets = envVarDocs(Environment).filter((d) => d.secret);
    expect(secrets.map((d) => d.name).sort()).toEqual([
      'DATABASE_REPLICA_URLS',
      'DATABASE_URL',
      'METRICS_TOKEN',
      'SCAN_COMMAND',
      'SMTP_URL',
      'SYNC_SOURCES',
    ]);
    expect(() => loadEnvironment({ METRICS_TOKEN: 'hunter2' })).toThrow(
      'Invalid configuration: METRICS_TOKEN: METRICS_TOKEN must be at least 16 characters',
    );
  });

  it('documents the default each instance starts with, and gives each its own copy of a list', () => {
    const env = loadEnvironment({}) as unknown as Record<string, unknown>;
    for (const doc of envVarDocs(Environment).filter((d) => !d.default.startsWith('('))) {
      const value = env[doc.name];
      expect([doc.name, Array.isArray(value) ? value.join(',') : String(value)]).toEqual([doc.name, doc.default]);
    }
    loadEnvironment({}).PROBE_PORTS.push(8080);
    expect(loadEnvironment({}).PROBE_PORTS).toEqual([443, 80]);
  });

  it('refuses two wings that declare the same variable', () => {
    class First {
      @IntVar({ default: 1, min: 0, max: 9, description: 'One.' })
      SAME: number;
    }
    class Second {
      @IntVar({ default: 2, min: 0, max: 9, description: 'Two.' })
      SAME: number;
    }
    expect(() => composeEnvironment(First, Second)).toThrow('SAME is declared by two wings');
  });
});
