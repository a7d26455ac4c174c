import type { OnOff } from './env-transforms.js';
import { CronVar, ListVar, OnOffVar } from './env-var.decorator.js';

/** Program sync: the scope lists the worker imports on a schedule. */
export class SyncEnvironment {
  @ListVar({
    // A list's URL may carry its API key.
    secret: true,
    keepCase: true,
    matches: /^(bounty-targets|chaos|txt):https?:\/\/\S+$/,
    message: 'SYNC_SOURCES must be a comma list of format:URL with format bounty-targets, chaos or txt',
    description:
      'Scope lists the worker imports on SYNC_CRON: a comma list of format:URL, e.g. bounty-targets:https://…/hackerone_data.json.',
  })
  SYNC_SOURCES?: string[];

  @CronVar({
    default: '0 0 */6 * * *',
    description: 'When the worker syncs SYNC_SOURCES: a cron expression, five fields or six with seconds.',
  })
  SYNC_CRON: string;

  @OnOffVar({ default: 'off', description: 'Disable the domains that left a synced scope list: on or off.' })
  SYNC_PRUNE: OnOff;
}
