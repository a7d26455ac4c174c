import { EnumVar, IntVar, ListVar, StringVar } from './env-var.decorator.js';

/** The Certificate Transparency follower. */
export class CtEnvironment {
  @ListVar({
    keepCase: true,
    matches: /^((static:)?https?:\/\/[^\s/]+\S*|list)$/i,
    message: 'CT_LOGS must be a comma list of log URLs (http:// or https://), static:URL logs and the word list',
    description:
      'Certificate Transparency logs the worker follows, a comma list: URL is an RFC 6962 log (its base URL: ' +
      'URL/ct/v1/get-sth, URL/ct/v1/get-entries), static:URL a static-ct-api log (its monitoring prefix: ' +
      'URL/checkpoint, URL/tile/data/…), and the word list every usable or qualified log of CT_LOG_LIST. Each log ' +
      'is read by one worker process at a time; every certificate name under a tracked, enabled root is recorded ' +
      'as a host. Unset: no follower.',
  })
  CT_LOGS?: string[];

  @StringVar({
    default: 'https://www.gstatic.com/ct/log_list/v3/log_list.json',
    maxLength: 2048,
    description:
      'The log list that CT_LOGS=list follows: a path or an http(s) URL of a list in the v3 JSON format Chrome ' +
      'publishes. Read when the worker starts and again every day.',
  })
  CT_LOG_LIST: string;

  @EnumVar({
    values: ['end', 'start'],
    default: 'end',
    description:
      'Where a log never followed before starts: end (its current tree size, only new entries) or start (index 0). ' +
      'A log followed before always goes on from its saved position.',
  })
  CT_START: 'end' | 'start';

  @IntVar({ default: 10, min: 1, max: 3600, description: "Seconds between reads of a caught-up log's tree head." })
  CT_POLL_SECONDS: number;

  @IntVar({ default: 4, min: 1, max: 32, description: 'get-entries requests in flight at once per followed log.' })
  CT_CONCURRENCY: number;
}
