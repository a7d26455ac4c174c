/** The five tracked platforms; the migration creates exactly these rows. */
export const PLATFORM_SLUGS = ['self', 'hackerone', 'bugcrowd', 'intigriti', 'yeswehack'] as const;
export type PlatformSlug = (typeof PLATFORM_SLUGS)[number];
