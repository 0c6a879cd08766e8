import { t } from '@lingui/core/macro';

/** Whether nothing limits what the signed-in user sees (the server says so: `restricted` on /auth/me). */
export const seesEverything = (me: { restricted: boolean } | undefined): boolean => me !== undefined && !me.restricted;

/** Said where a list is empty for someone who may not see everything (in the interface language). */
export const nothingYouCanSee = (): string =>
  t`Nothing here you can see. An administrator decides which libraries and ratings your account shows.`;
