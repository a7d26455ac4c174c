import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { Environment } from '../config/environment.js';
import { type PostOutcome, postWebhook } from './webhook-http.js';
import { channelOf, type Outgoing, type WebhookFormat } from './channels/index.js';
import { mailRecipients } from './channels/email.js';
import { deliveryHeaders } from './webhook-payload.js';

/** Where and how a webhook is sent to. */
export interface WebhookTarget {
  url: string;
  format: WebhookFormat;
  secret: string | null;
}

/**
 * Sends one delivery, whatever the channel: a mail over SMTP_URL (nodemailer) when it renders one (email), else a
 * POST to the webhook's URL or where its channel says (Telegram's sendMessage), each within WEBHOOK_TIMEOUT_SECONDS.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private mailer?: Transporter;

  constructor(private readonly env: Environment) {}

  async send(
    target: WebhookTarget,
    kind: string,
    deliveryId: string,
    outgoing: Outgoing,
    signal?: AbortSignal,
  ): Promise<PostOutcome> {
    if ('subject' in outgoing) return this.mail(mailRecipients(target.url), outgoing);
    const url = channelOf(target.format).endpoint?.(target.url) ?? target.url;
    return postWebhook(url, outgoing.body, deliveryHeaders(kind, deliveryId, target.secret, outgoing.body), {
      timeoutMs: this.env.WEBHOOK_TIMEOUT_SECONDS * 1000,
      signal,
      allowPrivate: this.env.WEBHOOK_ALLOW_PRIVATE === 'on',
    });
  }

  private async mail(to: string[], mail: { subject: string; text: string }): Promise<PostOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (!this.env.SMTP_URL || !this.env.SMTP_FROM) {
      return { ok: false, status: null, error: 'SMTP_URL and SMTP_FROM are not set', durationMs: 0 };
    }
    const timeout = this.env.WEBHOOK_TIMEOUT_SECONDS * 1000;
    const smtp = new URL(this.env.SMTP_URL);
    const secure = smtp.protocol === 'smtps:';
    this.mailer ??= nodemailer.createTransport({
      host: smtp.hostname,
      port: Number(smtp.port) || (secure ? 465 : 587),
      secure,
      auth: smtp.username
        ? { user: decodeURIComponent(smtp.username), pass: decodeURIComponent(smtp.password) }
        : undefined,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    try {
      await this.mailer.sendMail({ from: this.env.SMTP_FROM, to, subject: mail.subject, text: mail.text });
      return { ok: true, status: null, error: null, durationMs: elapsed() };
    } catch (e) {
      // The server's reply code, or nodemailer's error code: never its message, which may quote the server.
      const error = e as { responseCode?: number; code?: string };
      const reason = error.responseCode ? `SMTP ${error.responseCode}` : (error.code ?? 'mail failed');
      return { ok: false, status: null, error: reason, durationMs: elapsed() };
    }
  }

  onModuleDestroy(): void {
    this.mailer?.close();
  }
}
