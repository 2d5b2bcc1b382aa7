/**
 * The store as the service's own faces see it: a loop queued through it (the API's submit, resume, a
 * schedule's firing) wakes the supervisor at once instead of at its next tick.
 */
import type { Store } from "../store/store.ts";

/** `store`, except that appending a `loop_queued` event calls `wake` once it is durable. */
export function wakingStore(store: Store, wake: () => void): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "appendEvent") {
        return async (...args: Parameters<Store["appendEvent"]>) => {
          const event = await target.appendEvent(...args);
          if (event.type === "loop_queued") wake();
          return event;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
