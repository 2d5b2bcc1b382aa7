/**
 * One in-process feed of timeline events for every live subscriber (SSE clients, the dashboard): it
 * polls the store's global event id, so events appended by any process (a foreground `run`, another
 * service) arrive, and `nudge()` makes an in-process append arrive at once instead of at the next poll.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { Store, StoredEvent } from "../store/store.ts";

export interface EventFeedOptions {
  /** Poll period in ms (default 50). */
  pollMs?: number;
  /** Events read per store query (default 500). */
  batch?: number;
}

export interface EventFeed {
  /**
   * Calls `deliver` with every event whose id is above `afterId` (only `loopId`'s when given), in id
   * order, each exactly once: first those already stored (caught up from the store), then live ones.
   * Returns the unsubscribe function. `deliver` must not throw; a rejected promise from it is ignored.
   */
  subscribe(
    afterId: number,
    deliver: (event: StoredEvent) => void | Promise<void>,
    loopId?: string,
  ): () => void;
  /** Polls now (after an in-process append). */
  nudge(): void;
  /** How many subscribers are connected (an SSE client that left is gone from it). */
  subscriberCount(): number;
  /** The highest event id the feed has delivered or seen stored. */
  lastId(): Promise<number>;
  close(): void;
}

interface Subscriber {
  /** The id of the last event handed to this subscriber. */
  cursor: number;
  loopId?: string;
  deliver: (event: StoredEvent) => void | Promise<void>;
  /** Catching up from the store: live events wait until the backlog is read. */
  catchingUp: boolean;
}

export function createEventFeed(store: Store, options: EventFeedOptions = {}): EventFeed {
  const pollMs = options.pollMs ?? 50;
  const batch = options.batch ?? 500;
  const subscribers = new Set<Subscriber>();
  let head: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const hand = (subscriber: Subscriber, event: StoredEvent) => {
    if (event.id <= subscriber.cursor) return;
    subscriber.cursor = event.id;
    if (subscriber.loopId !== undefined && subscriber.loopId !== event.loopId) return;
    Promise.resolve()
      .then(() => subscriber.deliver(event))
      .catch(() => {});
  };

  /** Reads what was appended since `head` and hands it to every subscriber not catching up. */
  const poll = async () => {
    // Starting (or restarting after idle): from the store's last id, or from the oldest live
    // subscriber's cursor, so that none misses what came after it (a repeat is dropped by `hand`).
    if (head === undefined) {
      const live = [...subscribers].filter((subscriber) => !subscriber.catchingUp);
      head =
        live.length > 0
          ? Math.min(...live.map((subscriber) => subscriber.cursor))
          : await store.lastEventId();
    }
    for (;;) {
      const events = await store.readEventsAfter(head, batch);
      for (const event of events) {
        head = event.id;
        for (const subscriber of subscribers) if (!subscriber.catchingUp) hand(subscriber, event);
      }
      if (events.length < batch) return;
    }
  };
  const run = (): Promise<void> => {
    if (polling) {
      again = true;
      return polling;
    }
    polling = poll()
      .catch(() => {
        // A busy or failing store: the next tick tries again.
      })
      .finally(() => {
        polling = undefined;
        if (again && !closed) {
          again = false;
          void run();
        }
      });
    return polling;
  };
  const ensureTimer = () => {
    if (timer || closed) return;
    timer = setInterval(() => void run(), pollMs);
    timer.unref();
  };

  /**
   * Reads the backlog from the store up to the feed's head, then lets live events through. A failing
   * store is retried at the poll period; the switch to live happens only when nothing lies between the
   * subscriber's cursor and the head (checked synchronously, so the poller cannot slip an event past).
   */
  const catchUp = async (subscriber: Subscriber) => {
    while (subscribers.has(subscriber) && !closed) {
      try {
        await run();
        const target = head ?? 0;
        while (subscriber.cursor < target) {
          const events = await store.readEventsAfter(subscriber.cursor, batch, subscriber.loopId);
          const below = events.filter((event) => event.id <= target);
          for (const event of below) hand(subscriber, event);
          // This loop's events up to the target are all handed: skip the other loops' ids.
          if (below.length < events.length || events.length < batch)
            subscriber.cursor = Math.max(subscriber.cursor, target);
        }
      } catch {
        await delay(pollMs);
        continue;
      }
      if ((head ?? 0) <= subscriber.cursor) {
        subscriber.catchingUp = false;
        return;
      }
    }
  };

  return {
    subscribe(afterId, deliver, loopId) {
      const subscriber: Subscriber = { cursor: afterId, loopId, deliver, catchingUp: true };
      subscribers.add(subscriber);
      ensureTimer();
      void catchUp(subscriber).catch(() => {});
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
          // Idle: the next subscriber starts the feed from the store's last id, not from here.
          head = undefined;
        }
      };
    },
    nudge() {
      if (subscribers.size > 0) void run();
    },
    subscriberCount: () => subscribers.size,
    async lastId() {
      const stored = await store.lastEventId();
      return Math.max(stored, head ?? 0);
    },
    close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      subscribers.clear();
    },
  };
}

/**
 * The same store, whose appends nudge `feed` once durable: give it to what appends in this process
 * (the service's supervisor, the API's actions) so their events stream at once instead of at the next poll.
 */
export function nudgingStore(store: Store, feed: EventFeed): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "appendEvent") {
        return async (...args: Parameters<Store["appendEvent"]>) => {
          const event = await target.appendEvent(...args);
          feed.nudge();
          return event;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
