import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadEnvironment } from '../config/environment.js';
import { Shutdown } from '../common/shutdown.js';
import { createApp, drainHttp } from './create-app.js';
import { routeConsole } from '../common/logging/logging.js';
import { EmbeddedDatabaseError } from '../database/embedded-database.js';
import { openDatabase } from '../database/database.js';

/** How long closing the app and the database may take beyond the shutdown deadline. */
const CLOSE_GRACE_MS = 10_000;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

async function main(): Promise<void> {
  const env = loadEnvironment();
  const database = await openDatabase(env, 'own');
  const app = await createApp(env, database.target);
  const logger = new Logger('Main'); // the app's pino logger, once createApp has installed it
  routeConsole(new Logger('Console'));
  await app.listen(env.PORT, env.HOST);
  logger.log(`Subdomain Monitor listening on ${await app.getUrl()} (database: ${database.target.kind})`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // From now on no new webhook delivery starts; those in flight may finish until SHUTDOWN_TIMEOUT has passed.
    const shutdown = app.get(Shutdown);
    shutdown.begin(env.SHUTDOWN_TIMEOUT * 1000);
    logger.log(`${signal} received: draining requests for up to ${env.SHUTDOWN_TIMEOUT} s`);
    try {
      // First the HTTP side: no new connections, in-flight requests and streams run to their end.
      const drained = await drainHttp(app, env.SHUTDOWN_TIMEOUT * 1000);
      if (!drained) logger.warn('Shutdown timeout reached: open connections were closed');
      // Then the rest: webhook deliveries in flight finish and are recorded (until the deadline), the worker
      // checkpoints its running scans and gives them back, the pool closes. A connection an aborted stream never
      // handed back would keep the pool from closing: the process does not wait forever.
      const closing = (async () => {
        await app.close();
        await database.close();
        return true;
      })();
      const grace = shutdown.remainingMs(0) + CLOSE_GRACE_MS;
      const closed = await Promise.race([closing, delay(grace).then(() => false)]);
      if (!closed) logger.warn(`Closing took over ${Math.round(grace / 1000)} s: exiting without waiting for it`);
      logger.log('Stopped');
      process.exit(0);
    } catch (error) {
      logger.error(`Shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Start-up failures are one line on stderr: the bad variable, the busy data directory, the unreachable server.
  const known = error instanceof ConfigError || error instanceof EmbeddedDatabaseError;
  process.stderr.write(`${known ? error.message : `Start-up failed: ${(error as Error)?.message ?? String(error)}`}\n`);
  process.exit(1);
});
