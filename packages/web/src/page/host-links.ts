import { el } from './format.js';
import { Rpc } from './rpc.js';
import type { Store } from './store.js';

/**
 * How long before another try at a host that could not be reached (SSH failed, no daemon): an
 * SSH login costs seconds, and a host that is down is usually down for a while.
 */
const HOST_RETRY_MS = 30_000;

interface HostInfo {
  name: string;
  destination: string;
}

/**
 * The other machines of config.json's `hosts` (docs/web.md, "Every host"): one connection per
 * host, which this machine's daemon joins to that host's daemon through SSH; their sessions
 * join the grid, marked with the host. A host that cannot be reached is said in a line under
 * the top bar and tried again every HOST_RETRY_MS; one that drops reconnects by itself, as
 * this machine's daemon does.
 */
export class HostLinks {
  private readonly status = new Map<string, string>();
  private readonly lines = el('ul');
  private stopped = false;

  constructor(
    /** This machine's daemon: it names the hosts and joins the page to each. */
    private readonly local: Rpc,
    private readonly session: string,
    private readonly store: Store,
    private readonly root: HTMLElement,
    /** A host's sessions are listed (again): an address naming one can be shown now. */
    private readonly onListed: () => void,
  ) {
    root.append(this.lines);
  }

  /** Asks this machine's daemon for the hosts and connects to each. */
  async start(): Promise<void> {
    let hosts: HostInfo[];
    try {
      ({ hosts } = await this.local.request<{ hosts: HostInfo[] }>('list_hosts'));
    } catch {
      return; // A daemon without hosts support: this machine alone.
    }
    await Promise.all(hosts.map((h) => this.connect(h)));
  }

  private async connect(host: HostInfo): Promise<void> {
    if (this.stopped) return;
    this.say(host.name, `${host.name}: connecting through ssh ${host.destination}…`);
    let rpc: Rpc;
    try {
      rpc = await Rpc.connect(this.session, host.name);
    } catch (err) {
      this.say(
        host.name,
        `${host.name}: not reached (${(err as Error).message}); trying again in ${HOST_RETRY_MS / 1000} s`,
      );
      setTimeout(() => void this.connect(host), HOST_RETRY_MS);
      return;
    }
    rpc.onLink((event) => {
      if (!event.up) {
        this.say(host.name, `${host.name}: disconnected (${event.why}); reconnecting by itself`);
        return;
      }
      void this.store
        .sync(host.name)
        .then(() => {
          this.say(host.name, '');
          this.onListed();
        })
        .catch((err: Error) => this.say(host.name, `${host.name}: ${err.message}`));
    });
    try {
      await this.store.addSource({ host: host.name, rpc });
      this.say(host.name, '');
      this.onListed();
    } catch (err) {
      this.say(host.name, `${host.name}: ${(err as Error).message}`);
    }
  }

  /** Shows (or clears, with '') what a host's line says. */
  private say(host: string, text: string): void {
    if (text) this.status.set(host, text);
    else this.status.delete(host);
    this.lines.replaceChildren(
      ...[...this.status.entries()].map(([name, line]) => {
        const item = el('li', '', line);
        item.dataset.host = name;
        return item;
      }),
    );
    this.root.hidden = this.status.size === 0;
  }

  dispose(): void {
    this.stopped = true;
  }
}
