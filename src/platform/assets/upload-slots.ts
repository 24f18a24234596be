/** A place among a user's uploads in flight, or why there is none. */
export type SlotAnswer = { taken: true; release(): void } | { taken: false; running: number };

/**
 * The per-user cap of uploads in flight (H8): in this process's memory (`MemoryUploadSlots`) or, for
 * several instances, in Redis (`RedisUploadSlots`), chosen at start (composition/shared-state.ts).
 */
export interface UploadSlots {
  take(userId: number): SlotAnswer | Promise<SlotAnswer>;
}

/** One process's uploads. */
export class MemoryUploadSlots implements UploadSlots {
  private readonly inFlight = new Map<number, number>();

  constructor(private readonly perUser: number) {}

  take(userId: number): SlotAnswer {
    const running = this.inFlight.get(userId) ?? 0;
    if (running >= this.perUser) return { taken: false, running };
    this.inFlight.set(userId, running + 1);
    return {
      taken: true,
      release: () => {
        const left = (this.inFlight.get(userId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(userId, left);
        else this.inFlight.delete(userId);
      },
    };
  }
}
