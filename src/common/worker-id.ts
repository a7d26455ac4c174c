import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A worker id names the host and process, so a restarted process can tell its dead predecessor's work. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** Whether the process of a worker id on this host still runs. */
export function workerAlive(workerId: string): boolean {
  try {
    process.kill(Number(workerId.split(':')[1]), 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A LIKE pattern for the worker ids of this host (use ESCAPE '\'). */
export const thisHostWorkers = () => `${hostname().replace(/[\\%_]/g, (c) => `\\${c}`)}:%`;
