import { parseSpecText } from "./src/loop/spec-file.ts";
const base = "name: nightly\ngoal: do it\nmaker: { engine: command, run: make }\n";
for (const sched of [
  "schedule: { cron: '0 3 * * 1-5', timezone: europe/paris }",
  "schedule: { every: 30m }",
  "schedule:\n  cron: '61 3 * * *'\n  timezone: Europe/Pariss",
  "schedule: { cron: '0 3 * *', timezone: UTC }",
  "schedule: { cron: '0 0 30 2 *', timezone: UTC }",
  "schedule: { every: 0 }",
  "schedule: { every: 10s }",
  "schedule: { every: soon }",
  "schedule: {}",
  "schedule: { every: 5m, cron: '* * * * *' }",
  "schedule: { every: 5m, timezone: UTC }",
  "schedule: { cron: '0 3 * * *' }",
  "schedule: { cron: '0 3 * * *', timezone: Paris }",
  "schedule: { cron: '0 3 * * *', timezone: America/New_Yrok }",
  "schedule: { evry: 5m }",
  "schedule: 30m",
]) {
  try { console.log(JSON.stringify(parseSpecText(base + sched + "\n", "loop.yaml", "/tmp").spec.schedule)); }
  catch (e) { console.log((e as Error).message); }
}
