import { createTransport } from 'nodemailer';
import type { EmailAlertConfig } from '../config/index.ts';
import { firstLineOf } from '../errors.ts';
import { AlertDeliveryError } from './errors.ts';

export interface Mail {
  readonly subject: string;
  readonly text: string;
}

/** Sends one mail over SMTP as the alert's `email:` says; every step is bounded by `timeoutMs` and stopped by `signal`. */
export async function sendEmail(
  settings: EmailAlertConfig, credentials: { user: string; pass: string } | undefined, mail: Mail, timeoutMs: number, signal: AbortSignal,
): Promise<void> {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.tls === 'implicit',
    requireTLS: settings.tls === 'starttls',
    ignoreTLS: settings.tls === 'none',
    auth: credentials,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  const { promise: aborted, reject } = Promise.withResolvers<never>();
  const abort = (): void => { reject(new AlertDeliveryError('the mail server did not answer in time')); };
  signal.addEventListener('abort', abort, { once: true });
  try {
    if (signal.aborted) abort();
    const sending = transport.sendMail({ from: settings.from, to: [...settings.to], subject: mail.subject, text: mail.text });
    sending.catch(() => undefined); // once aborted, its late failure has nobody to tell
    await Promise.race([sending, aborted]);
  } catch (error) {
    if (error instanceof AlertDeliveryError) throw error;
    throw new AlertDeliveryError(`the mail server did not take the message: ${firstLineOf(error)}`);
  } finally {
    signal.removeEventListener('abort', abort);
    transport.close();
  }
}
