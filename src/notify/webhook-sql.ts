/*
 * Which hosts and domains a webhook tells of, as SQL conditions shared by the statements that queue, gather and
 * list its deliveries and digests.
 */

/** The host whose id is `hostId` is of the scope of webhook `w` (in, out or all), by its domain's exclusion rules. */
export const ofWebhookScope = (hostId: string, w: string) =>
  `(${w}.scope = 'all'
    OR (${w}.scope = 'out') = EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${hostId} AND k.out_of_scope))`;

/**
 * A host `h` the webhook `w` tells of: never a wildcard echo, and of the webhook's scope (in: no exclusion rule
 * names it; out: one does; all).
 */
export const toldTo = (h: string, w: string) =>
  `NOT EXISTS (SELECT 1 FROM host_intel k WHERE k.host_id = ${h}.id AND k.wildcard)
   AND ${ofWebhookScope(`${h}.id`, w)}`;

/** The webhook `w` hears of the domain `d`: it lists neither platforms nor domains, or lists it. */
export const hearsOf = (w: string, d: string) =>
  `(${w}.domain_ids IS NULL OR ${d}.id = ANY (${w}.domain_ids))
   AND (${w}.platforms IS NULL OR ${d}.platform_slug = ANY (${w}.platforms))`;
