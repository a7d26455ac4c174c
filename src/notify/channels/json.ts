import type { Channel } from './channel.js';

/** The event as JSON, for any endpoint; signed with the secret the API makes for it when none is given. */
export const json: Channel<'json'> = {
  format: 'json',
  makesSecret: true,
  render: (notice) => ({ body: JSON.stringify(notice.data) }),
};
