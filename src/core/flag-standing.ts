/**
 * A tamper flag's standing: whether loopwright decides it itself (`blocking`), or hands it to the
 * verifier because `tamper.accept` names its kind (`accepted`) or its class is `advisory`. Pure.
 */
import type { RecordedTamperFlag } from "./events.ts";
import type { Spec } from "./spec.ts";
import { acceptedKinds } from "./tamper-acceptance.ts";
import { tamperClassOf } from "./tamper-flag.ts";

/** `blocking`: fails the iteration; `accepted`: blocking, but `tamper.accept` hands it to the verifier; `advisory`: the verifier rules. */
export type FlagStanding = "blocking" | "accepted" | "advisory";

export function flagStanding(spec: Spec, flag: RecordedTamperFlag): FlagStanding {
  if (tamperClassOf(flag.kind) === "advisory") return "advisory";
  return acceptedKinds(spec.tamper.accept).has(flag.kind) ? "accepted" : "blocking";
}
