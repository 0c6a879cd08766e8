/** The comparable form of a username or email: logins match case-insensitively and ignore surrounding spaces. */
export const userKey = (value: string): string => value.trim().toLowerCase();
