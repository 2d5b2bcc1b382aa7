/** Who did an owner action: its schema (the actor of a CLI command is `cliActor` in src/cli/cli-actor.ts). */
import { z } from "zod";
import type { Actor } from "../core/events.ts";

export type { Actor } from "../core/events.ts";

/** `{ via: "cli" | "web" | "service" | "schedule", name }`, recorded as `by` on an action's event. */
export const actorSchema = z.object({
  via: z.enum(["cli", "web", "service", "schedule"]),
  name: z.string().min(1).max(200),
}) satisfies z.ZodType<Actor>;
