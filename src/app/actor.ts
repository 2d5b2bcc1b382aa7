/** Who did an owner action: the schema the API validates and the actor of a command typed in a terminal. */
import { userInfo } from "node:os";
import { z } from "zod";
import type { Actor } from "../loop/events.ts";

export type { Actor } from "../loop/events.ts";

/** `{ via: "cli" | "web" | "service" | "schedule", name }`, recorded as `by` on an action's event. */
export const actorSchema = z.object({
  via: z.enum(["cli", "web", "service", "schedule"]),
  name: z.string().min(1).max(200),
}) satisfies z.ZodType<Actor>;

/** The actor of a CLI command: the OS user running it (`unknown` where the OS cannot say). */
export function cliActor(): Actor {
  try {
    return { via: "cli", name: userInfo().username || "unknown" };
  } catch {
    return { via: "cli", name: process.env.USER || "unknown" };
  }
}
