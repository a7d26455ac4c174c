import type { CtLogKind } from './ct-logs.repository.js';

/** A log to follow: its URL (base URL, or monitoring prefix for a static-ct-api log) and its API. */
export interface CtLogSpec {
  url: string;
  kind: CtLogKind;
}

/** CT_LOGS as logs: `URL` is an RFC 6962 log, `static:URL` a static-ct-api log; the word `list` is left out. */
export function namedLogs(entries: readonly string[]): CtLogSpec[] {
  return entries
    .filter((entry) => entry.toLowerCase() !== 'list')
    .map((entry) =>
      /^static:/i.test(entry)
        ? { url: trimUrl(entry.slice(7)), kind: 'static' }
        : { url: trimUrl(entry), kind: 'rfc6962' },
    );
}

export function trimUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Log states (log list v3) whose logs are followed: those that browsers accept SCTs from. */
const FOLLOWED_STATES = ['usable', 'qualified'];
const MAX_LOGS = 500;

export class LogListError extends Error {}

/**
 * The logs to follow from a log list in the v3 format that Chrome publishes (log_list.json):
 * `operators[].logs[]` are RFC 6962 logs at `url`, `operators[].tiled_logs[]` static-ct-api logs at
 * `monitoring_url`; each `state` is an object with one key (pending, qualified, usable, readonly, retired,
 * rejected). Only usable and qualified logs are taken; an entry without an http(s) URL is passed over.
 */
export function parseLogList(text: string): CtLogSpec[] {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    throw new LogListError('the log list is not JSON');
  }
  const operators = (list as { operators?: unknown })?.operators;
  if (!Array.isArray(operators)) throw new LogListError('the log list has no operators array');
  const found = new Map<string, CtLogSpec>();
  const take = (log: unknown, key: 'url' | 'monitoring_url', kind: CtLogKind) => {
    const entry = log as Record<string, unknown> | null;
    const url = entry?.[key];
    const state = entry?.state;
    // The length first, and a pattern with no two repeats over the same characters: linear on a hostile list.
    if (typeof url !== 'string' || url.length > 2048 || !/^https?:\/\/[^\s/]\S*$/i.test(url)) return;
    if (!state || typeof state !== 'object' || !FOLLOWED_STATES.some((s) => s in state)) return;
    if (found.size < MAX_LOGS) found.set(trimUrl(url), { url: trimUrl(url), kind });
  };
  for (const operator of operators as { logs?: unknown; tiled_logs?: unknown }[]) {
    if (Array.isArray(operator?.logs)) for (const log of operator.logs) take(log, 'url', 'rfc6962');
    if (Array.isArray(operator?.tiled_logs))
      for (const log of operator.tiled_logs) take(log, 'monitoring_url', 'static');
  }
  return [...found.values()];
}
