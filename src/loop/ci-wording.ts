/**
 * What `finish.ci` says to people and to the maker: the repair brief's section (the failed checks and
 * their digests) and the pull request body's CI standing. Pure.
 */
import { cap } from "../core/cap-text.ts";
import type { LoopEvent } from "../core/events.ts";
import type { LoopState } from "./state.ts";

/** The whole repair section's size in a brief. */
const repairSectionLimit = 48 * 1024;

/** The brief's section for a repair iteration (and the attempts after it until CI is watched again). */
export function ciRepairSection(state: LoopState): string | undefined {
  const repair = state.ci?.repair;
  const ci = state.spec.finish.ci;
  if (!repair || !ci) return undefined;
  const lines = [
    `## CI failed on the pull request (repair ${repair.round} of at most ${ci.maxRepairs})`,
    `The local gates and the verifier passed on commit ${repair.sha}, but the forge's checks failed on it. ` +
      "Fix what the checks report below; the local gates and the verifier run again before the fix is pushed and CI is watched again.",
  ];
  for (const failure of repair.failures) {
    lines.push(
      "",
      `### Check ${failure.check}${failure.url ? ` (${failure.url})` : ""}`,
      `Log: ${failure.logSource}${failure.logPath ? `, saved at ${failure.logPath}` : ""}`,
    );
    if (failure.failures.length > 0) lines.push(`Failing tests: ${failure.failures.join("; ")}`);
    if (failure.digest.trim()) lines.push("```", failure.digest.trim(), "```");
  }
  return cap(lines.join("\n"), repairSectionLimit);
}

/** The report's (and so the pull request body's) CI section: each round's standing, newest last. Empty when CI is not watched. */
export function ciBodySection(state: LoopState): string {
  const ci = state.spec.finish.ci;
  const rounds = state.ci?.rounds ?? [];
  if (!ci || rounds.length === 0) return "";
  const lines = ["", "## CI", "", "| commit | round | standing | checks |", "|---|---|---|---|"];
  for (const round of rounds) {
    const checks = round.checks
      .map((check) => `${check.name}: ${check.state}`)
      .join(", ")
      .replace(/\|/g, "\\|");
    lines.push(
      `| \`${round.sha.slice(0, 12)}\` | ${round.round === 0 ? "first" : `repair ${round.round}`} | ${round.standing} | ${checks || "none reported"} |`,
    );
  }
  const failures = rounds.at(-1)?.failures ?? [];
  for (const failure of failures)
    lines.push(
      `- ${failure.check}: ${failure.failures.length > 0 ? failure.failures.slice(0, 5).join("; ") : "no failing test named"} (${failure.logSource})`,
    );
  return `${lines.join("\n")}\n`;
}

/** One line for a CI event in the terminal and the dashboard's timeline; undefined for other events. */
export function describeCiEvent(event: LoopEvent): string | undefined {
  switch (event.type) {
    case "ci_watch_started":
      return `CI: watching the forge's checks on ${event.data.sha.slice(0, 10)}${event.data.round > 0 ? ` (after repair ${event.data.round})` : ""}${event.data.deadline ? ` until ${event.data.deadline.slice(11, 19)} UTC` : ""}`;
    case "ci_checks_recorded": {
      const counts = (["passed", "failed", "pending", "skipped"] as const)
        .map((state) => [state, event.data.checks.filter((check) => check.state === state).length] as const)
        .filter(([, count]) => count > 0)
        .map(([state, count]) => `${count} ${state}`)
        .join(", ");
      const failing = (event.data.failures ?? []).flatMap((failure) => failure.failures).slice(0, 3);
      const waits = (event.data.waits ?? []).map((wait) => `; ${wait}`).join("");
      return `CI ${event.data.standing} on ${event.data.sha.slice(0, 10)}: ${counts || "no checks"}${failing.length > 0 ? `; failing: ${failing.join(", ")}` : ""}${event.data.error ? `; ${event.data.error}` : ""}${waits}`;
    }
    case "ci_repair_started":
      return `CI repair ${event.data.round}: the next iteration fixes ${event.data.failures.map((failure) => failure.check).join(", ") || "the failed checks"}`;
    default:
      return undefined;
  }
}

/** The dashboard's phase of a running loop between iterations, when CI is being watched. */
export function ciPhaseInWords(state: LoopState): string | undefined {
  const round = state.ci?.rounds.at(-1);
  if (round?.standing !== "pending" || state.finished?.sha !== round.sha) return undefined;
  return `watching CI on ${round.sha.slice(0, 10)}`;
}
