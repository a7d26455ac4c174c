import type { Channel } from './channel.js';
import { discord } from './discord.js';
import { email } from './email.js';
import { json } from './json.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';

/** Every channel a webhook can use, in the order the API and the pages list them. */
export const CHANNELS = [json, slack, discord, teams, telegram, email] as const;

export type WebhookFormat = (typeof CHANNELS)[number]['format'];
export const WEBHOOK_FORMATS: readonly WebhookFormat[] = CHANNELS.map((c) => c.format);

export function channelOf(format: WebhookFormat): Channel {
  return CHANNELS.find((c) => c.format === format)!;
}

export type { Channel, MessageOptions, Outgoing } from './channel.js';
