import { unknownCapabilities, type Capabilities } from '../shared/api/app-config';
import type { ProxyConfig } from './env';
import { probePlatform, type ProbeResult } from './platform-probe';

/** How the app reaches the API, and what the platform offers beyond the spec. */
export interface PlatformView {
  viaProxy: boolean;
  capabilities: Capabilities;
}

/** A platform that could not be reached is asked again after this long, when the app next starts. */
const reprobeAfterMs = 10_000;

/**
 * What the proxy knows about its platform: the probe at start, what it learned since (a refused
 * refresh grant, a missing revocation endpoint), and the operator's overrides, which win.
 */
export class PlatformKnowledge {
  readonly #config: ProxyConfig;
  readonly #probe: () => Promise<ProbeResult>;
  readonly #clock: () => number;
  #result: Promise<ProbeResult> | null = null;
  /** The probe's answer once it has come, for answers that cannot wait for it. */
  #settled: ProbeResult | null = null;
  #probedAt = 0;
  #learned: Partial<Capabilities> = {};

  constructor(config: ProxyConfig, probe?: () => Promise<ProbeResult>, clock: () => number = Date.now) {
    this.#config = config;
    this.#clock = clock;
    this.#probe =
      probe ??
      (() =>
        probePlatform({
          platformBaseUrl: config.platformBaseUrl,
          platformAuthUrl: config.platformAuthUrl,
          appOrigin: config.publicOrigin,
          entityPaths: config.entityPaths,
          timeoutMs: Math.min(config.platformTimeoutMs, 5_000),
        }));
  }

  /** Starts the probe without waiting for it. */
  start(): void {
    void this.#probed();
  }

  async #probed(): Promise<ProbeResult> {
    const stale =
      this.#result && !(await this.#result).reachable && this.#clock() - this.#probedAt > reprobeAfterMs;
    if (!this.#result || stale) {
      this.#probedAt = this.#clock();
      this.#settled = null;
      const result = this.#probe();
      this.#result = result;
      void result.then(
        (settled) => {
          if (this.#result === result) this.#settled = settled;
        },
        () => undefined,
      );
    }
    return this.#result;
  }

  /** Something a platform answer showed (the refresh grant refused, no revocation endpoint). */
  learn(changes: Partial<Pick<Capabilities, 'refreshGrant' | 'revoke'>>): void {
    Object.assign(this.#learned, changes);
  }

  async view(): Promise<PlatformView> {
    return this.#viewOf(await this.#probed());
  }

  /**
   * The view without waiting: null while a probe is under way, or when an unreachable platform is due
   * to be asked again (that answer is worth the wait of `view()`).
   */
  settledView(): PlatformView | null {
    const settled = this.#settled;
    if (!settled) return null;
    if (!settled.reachable && this.#clock() - this.#probedAt > reprobeAfterMs) return null;
    return this.#viewOf(settled);
  }

  #viewOf(probe: ProbeResult): PlatformView {
    const { apiViaProxy } = this.#config;
    // Unknown CORS (platform unreachable at start) goes through the proxy, which works either way.
    const viaProxy = apiViaProxy === '1' || (apiViaProxy === 'auto' && !probe.cors?.direct);
    const capabilities: Capabilities = {
      ...unknownCapabilities,
      ...probe.api,
      ...probe.oauth,
      resumableUploads: probe.resumableUploads ?? null,
      // Through the proxy any header reaches the platform, which ignores one it does not know.
      idempotencyKey: viaProxy || (probe.cors?.idempotencyKey ?? false),
      ifMatch: viaProxy || (probe.cors?.ifMatch ?? false),
      ...this.#learned,
      ...this.#config.capabilityOverrides,
    };
    return { viaProxy, capabilities };
  }
}
