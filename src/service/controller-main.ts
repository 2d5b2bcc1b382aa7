/**
 * The entry of one loop's controller process, started by `serve` (see controller-process.ts) with the
 * same node and the same file form as the service (`.ts` from the sources, `.js` from dist). It turns
 * on node's compile cache before loading the runner, so that the second and later controllers load
 * their modules from cached code, then runs the protocol of controller-protocol.ts.
 */
import module from "node:module";

module.enableCompileCache?.();
const { runController } = await import("./controller-run.ts");
await runController();
