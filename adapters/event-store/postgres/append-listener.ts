import { Client, type ClientConfig } from 'pg';
import { APPENDED_CHANNEL } from './schema';

/**
 * One connection that LISTENs for the appends any engine commits and calls `onAppended` for each.
 * When the connection drops, it reconnects after `retryMs`; subscriptions poll meanwhile.
 */
export class AppendListener {
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly onAppended: () => void,
    private readonly retryMs: number,
  ) {}

  /** Starts listening unless it already is; never rejects (a failed connection is retried). */
  start(): Promise<void> {
    if (this.closed || this.client !== undefined) return Promise.resolve();
    if (this.connecting === undefined) this.connecting = this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new Client(this.config);
    client.on('notification', () => this.onAppended());
    client.on('error', () => this.dropped(client));
    client.on('end', () => this.dropped(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${APPENDED_CHANNEL}`);
    } catch {
      this.dropped(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Appends committed while no connection listened wake the subscribers once.
    this.onAppended();
  }

  private dropped(client: Client): void {
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
    if (this.closed || this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.start();
    }, this.retryMs);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    if (this.connecting !== undefined) await this.connecting;
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await client.end().catch(() => undefined);
  }
}
