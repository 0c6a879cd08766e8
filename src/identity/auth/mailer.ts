import { AppError } from '../../http/errors.js';
import type { Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config/schema.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/**
 * SMTP through nodemailer when `email.smtp.host` is set; otherwise the message (with its link) goes to the
 * log, so a server without mail can still verify accounts by reading its log.
 */
export function createMailer(config: Config, log: FastifyBaseLogger, transport?: Transporter): Mailer {
  const { smtp, from } = config.email;
  // nodemailer is loaded with the first e-mail, not at start (~0.3 s and ~10 MB a server may never need).
  let transporter: Promise<Transporter> | undefined = transport ? Promise.resolve(transport) : undefined;
  const smtpTransport = (): Promise<Transporter> | undefined => {
    if (!smtp.host) return undefined;
    transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
      }),
    );
    return transporter;
  };
  return {
    async send(mail) {
      const pending = transporter ?? smtpTransport();
      if (!pending) {
        log.warn({ to: mail.to, subject: mail.subject, text: mail.text }, 'no SMTP server configured: e-mail written to the log instead');
        return;
      }
      try {
        await (await pending).sendMail({ from, ...mail });
      } catch (err) {
        // The mail (and its link) goes to the log, as without SMTP, so an administrator can still pass it on.
        log.error(
          { err, to: mail.to, subject: mail.subject, text: mail.text },
          'the SMTP server did not take the e-mail: written to the log instead',
        );
        throw new AppError(
          503,
          'ServiceUnavailable',
          'The mail server could not be reached, so the e-mail was not sent; try again later',
          null,
          { 'Retry-After': '60' },
        );
      }
    },
  };
}
