import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from './passwords.js';
import { PERMISSIONS } from '../access/permissions.js';

export const Username = z
  .string()
  .trim()
  .min(2)
  .max(64)
  .regex(/^[\p{L}\p{N}._-]+$/u, 'letters, digits, dot, underscore and dash only')
  // HTTP Basic with the user name `api` carries an API key (spec, Authentication): such a user could never sign
  // in to an OPDS reader or a Komga app with a password.
  .refine((name) => name.toLowerCase() !== 'api', 'is reserved for API keys (Basic authentication with the user name "api")');
export const Email = z.string().trim().max(254).pipe(z.email());
export const Password = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(1024);

export const NewAccountBody = z.object({ username: Username, email: Email, password: Password }).meta({ id: 'NewAccount' });

export const LoginBody = z
  .object({
    username: z.string().min(1).max(254).describe('Username or e-mail address.'),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });

export const LoginResponse = z
  .object({
    access_token: z.string().describe('JWT (HS256).'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds until the token expires.'),
    user: z.object({ id: z.uuid(), username: z.string(), email: z.string(), role: z.string() }),
  })
  .meta({ id: 'LoginResponse' });

export const MeView = z
  .object({
    id: z.uuid(),
    username: z.string(),
    email: z.string(),
    role: z.string(),
    permissions: z.array(z.enum(PERMISSIONS)).describe('Effective permissions of this request (narrowed by the API key when one is used).'),
    auth_method: z.enum(['jwt', 'api_key', 'basic', 'session', 'proxy']),
    api_key_id: z.uuid().nullable(),
    restricted: z
      .boolean()
      .describe('Whether an administrator limited what this user sees (libraries, age, labels): screens then explain empty shelves.'),
  })
  .meta({ id: 'CurrentUser' });
