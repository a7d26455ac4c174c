import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Rerun } from '../common/rerun.js';
import { Shutdown } from '../common/shutdown.js';
import { Environment } from '../config/environment.js';
import { toEventDto } from '../events/dto/event.dto.js';
import { NewHostSignal } from '../events/new-host-signal.js';
import {
  MAX_HOSTS_PER_DELIVERY,
  type Outgoing,
  renderDigestPayload,
  renderEventsPayload,
  renderPayload,
  renderTestPayload,
} from './webhook-payload.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import type { ClaimedDelivery } from './delivery.model.js';
import { DigestsRepository } from './digests.repository.js';
import { WebhookSender } from './webhook-sender.js';

/** How often the worker looks for due deliveries (retries, and scans finished in other processes). */
const LOOK_MS = 2000;
/**
 * Deliveries attempted at once, each to a different webhook. Each claim fills only the free places, so a lease
 * never waits behind other attempts, and an attempt that ends frees its place for the next due delivery at once.
 */
const PARALLEL = 8;
/** The longest wait between two attempts. */
const MAX_RETRY_SECONDS = 86_400;

/**
 * The worker's webhook deliveries: a scan with new hosts queues one per matching webhook in its commit; this
 * service takes due ones at once after a scan of this process and every few seconds, POSTs each with a timeout,
 * and records the outcome. A failed attempt is retried after WEBHOOK_RETRY_SECONDS, four times longer each time,
 * until WEBHOOK_MAX_ATTEMPTS. Deliveries run beside the scans and never hold one up. Attempts run independently
 * of each other: a slow endpoint delays only its own deliveries (one at a time per webhook, in order), never
 * another webhook's.
 */
@Injectable()
export class WebhookDeliveryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private readonly delivering = new Rerun(() => this.claimDue());
  /** Attempts in flight, by delivery id. */
  private readonly attempts = new Map<string, Promise<void>>();
  private stopped = false;
  /** Aborts the attempts still in flight at the shutdown deadline; their deliveries are given back untouched. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly env: Environment,
    private readonly deliveries: DeliveriesRepository,
    private readonly digests: DigestsRepository,
    private readonly signal: NewHostSignal,
    private readonly shutdown: Shutdown,
    private readonly sender: WebhookSender,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.signal.subscribeLocal(() => this.kick());
    this.timer = setInterval(() => this.kick(), LOOK_MS);
    // From SIGTERM on no attempt starts; those in flight finish (beforeApplicationShutdown).
    this.shutdown.signal.addEventListener('abort', () => this.stop(), { once: true });
  }

  /**
   * Lets the attempts in flight finish and records their outcome, until SHUTDOWN_TIMEOUT after the signal: an
   * endpoint that answered is not sent the delivery again by the next process. Attempts still running then are
   * cut, their deliveries given back. Before any module shuts down, so the database is still there to record.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop();
    await this.delivering.settled();
    if (this.attempts.size === 0) return;
    const waitMs = this.shutdown.remainingMs(this.env.SHUTDOWN_TIMEOUT * 1000);
    this.logger.log(
      `waiting up to ${Math.ceil(waitMs / 1000)} s for ${this.attempts.size} webhook deliveries in flight`,
    );
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(this.attempts.values()).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (finished) return;
    this.logger.warn(`${this.attempts.size} webhook deliveries cut at the shutdown deadline: they are sent again`);
    this.stopping.abort();
    await Promise.all(this.attempts.values());
  }

  private stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /** Delivers what is due now; a call while deliveries run makes them look again when they are done. */
  kick(): void {
    if (!this.stopped) void this.delivering.run();
  }

  /** Resolves once nothing due is left and no attempt is in flight (tests wait on it). */
  async settled(): Promise<void> {
    for (;;) {
      await this.delivering.settled();
      if (this.attempts.size === 0) return;
      // Each attempt that ends looks for more: wait for the attempts, then for that look.
      await Promise.all(this.attempts.values());
    }
  }

  /** Starts an attempt at each due delivery there is a free place for; never waits for the attempts. */
  private async claimDue(): Promise<void> {
    try {
      await this.digests.openDigests(this.env.WEBHOOK_DIGEST_LAG_SECONDS);
      while (!this.stopped && this.attempts.size < PARALLEL) {
        const free = PARALLEL - this.attempts.size;
        const claimed = await this.deliveries.claimDue(
          free,
          this.env.WEBHOOK_TIMEOUT_SECONDS + 30,
          this.env.CT_WEBHOOK_GATHER_SECONDS,
        );
        // Taken as the process began to stop: given back unattempted, for the next process.
        if (this.stopped) {
          await Promise.all(claimed.map((d) => this.deliveries.release(d)));
          return;
        }
        for (const delivery of claimed) this.start(delivery);
        if (claimed.length < free) return;
      }
    } catch (e) {
      this.logger.warn(`webhook deliveries skipped, the database is not answering: ${(e as Error).message}`);
    }
  }

  private start(delivery: ClaimedDelivery): void {
    const attempt = this.attempt(delivery)
      .catch((e: Error) => {
        // Its lease runs out and a later look takes the delivery up again.
        this.logger.warn(`webhook delivery ${delivery.id} not recorded, the database is not answering: ${e.message}`);
      })
      .finally(() => {
        this.attempts.delete(delivery.id);
        this.kick();
      });
    this.attempts.set(delivery.id, attempt);
  }

  /** What a delivery sends: the new hosts it tells of, or the changes it gathered. */
  private async outgoing(delivery: ClaimedDelivery): Promise<Outgoing> {
    const options = { publicUrl: this.env.PUBLIC_URL, chatId: delivery.chat_id };
    if (delivery.kind === 'test') return renderTestPayload(delivery.format, delivery.id, options);
    if (delivery.kind === 'digest') {
      const digest = await this.digests.digestOf(delivery, MAX_HOSTS_PER_DELIVERY);
      const batch = {
        deliveryId: delivery.id,
        windowFrom: delivery.window_from!,
        windowTo: delivery.window_to!,
        hostCount: digest.host_count,
        hosts: digest.hosts,
        eventCount: digest.event_count,
        events: digest.events.map(toEventDto),
      };
      return renderDigestPayload(delivery.format, batch, options);
    }
    const about = {
      deliveryId: delivery.id,
      domain: delivery.domain,
      platform: delivery.platform,
      program: delivery.program,
    };
    if (delivery.kind === 'host_events') {
      const events = await this.deliveries.eventsOf(delivery, MAX_HOSTS_PER_DELIVERY);
      const batch = { ...about, eventCount: delivery.new_count, events: events.map(toEventDto) };
      return renderEventsPayload(delivery.format, batch, options);
    }
    const hosts = await this.deliveries.newHostsOf(delivery, MAX_HOSTS_PER_DELIVERY);
    const batch = { ...about, scanId: delivery.scan_id, newCount: delivery.new_count, hosts };
    return renderPayload(delivery.format, batch, options);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const outgoing = await this.outgoing(delivery);
    const result = await this.sender.send(delivery, delivery.kind, delivery.id, outgoing, this.stopping.signal);
    if (!result.ok && this.stopping.signal.aborted) return this.deliveries.release(delivery);
    const retry =
      result.ok || delivery.attempts >= this.env.WEBHOOK_MAX_ATTEMPTS
        ? null
        : Math.min(MAX_RETRY_SECONDS, this.env.WEBHOOK_RETRY_SECONDS * 4 ** (delivery.attempts - 1));
    await this.deliveries.record(delivery, result, retry);
    if (!result.ok) {
      this.logger.warn(
        `webhook ${delivery.webhook_id} delivery ${delivery.id} attempt ${delivery.attempts} failed (${result.error}); ` +
          (retry === null ? 'given up' : `retrying in ${retry} s`),
      );
    }
  }
}
