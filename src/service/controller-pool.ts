/**
 * Controllers started ahead: each idle one has loaded its modules and opened the store, and waits for
 * a run order, so a loop the service starts does not wait for a node process to boot. `take` hands out
 * a ready one (else one still loading, else a new one started for the loop) and starts another in its
 * place. Size 0: every controller is started for its loop.
 */
import { type ControllerProcess, startController } from "./controller-process.ts";

export interface ControllerPool {
  /** A controller for `loopId`: an idle one when there is one, else one started now. */
  take(loopId: string): ControllerProcess;
  /**
   * Starts no more and sends `signal` to the idle ones (which exit: they have no run to end); resolves
   * once they have exited.
   */
  close(signal: NodeJS.Signals): Promise<void>;
}

export function createControllerPool(home: string, size: number): ControllerPool {
  const idle: ControllerProcess[] = [];
  let closed = false;
  const refill = () => {
    while (!closed && idle.length < size) {
      const controller = startController(home);
      idle.push(controller);
      // One that dies while idle is replaced, after a pause: a controller that cannot start must not spin.
      void controller.exited.then(() => {
        const index = idle.indexOf(controller);
        if (index < 0) return;
        idle.splice(index, 1);
        setTimeout(refill, 1_000).unref();
      });
    }
  };
  refill();
  return {
    take(loopId) {
      const index = Math.max(
        idle.findIndex((controller) => controller.isReady()),
        0,
      );
      const [controller] = idle.length > 0 ? idle.splice(index, 1) : [startController(home, loopId)];
      refill();
      return controller;
    },
    async close(signal) {
      closed = true;
      for (const controller of idle) controller.signal(signal);
      await Promise.all(idle.map((controller) => controller.exited));
    },
  };
}
