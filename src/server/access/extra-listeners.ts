// The addresses tend listens on beyond 127.0.0.1 (`tend remote enable
// --listen HOST:PORT`): started while remote access is on and the settings
// name them, stopped when it is turned off or they are taken out, each behind
// the same gate as 127.0.0.1. Plain HTTP on a network is readable by anyone
// on the path, so each start is logged with a warning (and `tend remote`
// says so too); a proxy with TLS in front of 127.0.0.1 is the better way.
import type { Disposable } from '../../common/lifecycle.js';
import type { Logger } from '../log.js';
import type { RemoteListener } from '../../protocol/api/index.js';
import type { RemoteSettings } from './identity.js';
import { parseListenAddress } from './hosts.js';

export interface StartedListener extends Disposable {
  readonly address: string;
}

export interface ExtraListenersOptions {
  log: Logger;
  /** Starts one gated listener (loopback.ts's startGatedListener, with the viewer sockets on it). */
  start(host: string, port: number): Promise<StartedListener>;
}

export class ExtraListeners implements Disposable {
  private readonly running = new Map<string, StartedListener>();
  private readonly failed = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly options: ExtraListenersOptions) {}

  /** Brings the listeners in line with the settings; changes are applied one after another. */
  sync(settings: RemoteSettings): Promise<void> {
    const wanted = settings.enabled ? settings.listen : [];
    this.queue = this.queue.then(() => this.apply(wanted));
    return this.queue;
  }

  private async apply(wanted: string[]): Promise<void> {
    for (const [address, listener] of this.running) {
      if (wanted.includes(address) && !this.disposed) continue;
      listener.dispose();
      this.running.delete(address);
      this.options.log.info(`remote access: stopped listening on ${address}`);
    }
    for (const address of [...this.failed.keys()]) if (!wanted.includes(address)) this.failed.delete(address);
    if (this.disposed) return;
    for (const address of wanted) {
      if (this.running.has(address)) continue;
      const parsed = parseListenAddress(address);
      if (parsed === null) continue;
      try {
        this.running.set(address, await this.options.start(parsed.host, parsed.port));
        this.failed.delete(address);
        this.options.log.warn(`remote access: listening on ${address} with plain HTTP: anyone on the network path can read it; a proxy with TLS in front of 127.0.0.1 is safer`);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EADDRNOTAVAIL' ? 'that address is not one of this machine\'s' : (err as Error).message;
        this.failed.set(address, why);
        this.options.log.warn(`remote access: cannot listen on ${address}: ${why}`);
      }
    }
  }

  status(): RemoteListener[] {
    return [
      ...[...this.running.keys()].map((address): RemoteListener => ({ address, kind: 'extra' })),
      ...[...this.failed].map(([address, error]): RemoteListener => ({ address, kind: 'extra', error })),
    ];
  }

  dispose(): void {
    this.disposed = true;
    for (const listener of this.running.values()) listener.dispose();
    this.running.clear();
  }
}
