/** The actor of an owner action filed from the CLI: the OS user. */
import { userInfo } from "node:os";
import type { Actor } from "../core/events.ts";

export function cliActor(): Actor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER || process.env.USERNAME || "unknown"; // no passwd entry (some containers)
  }
  return { via: "cli", name };
}
