/** The command table: names, arguments and options, each action loaded only when its command runs. */
import type { Command } from "commander";
import { readCommandForms } from "./read-commands.ts";

type SetExit = (code: number) => void;

const collect = (value: string, previous: string[]) => [...previous, value];

export function defineCommands(program: Command, setExit: SetExit, wanted?: string): void {
  const run =
    (load: () => Promise<(...args: never[]) => Promise<number | undefined>>) =>
    async (...args: unknown[]) => {
      const action = await load();
      setExit((await action(...(args as never[]))) ?? 0);
    };

  const definitions: [string, (command: Command) => void][] = [
    [
      "init",
      (command) =>
        command
          .description(
            "detect test, build and lint commands and write a commented loop.yaml; `init claude`: Claude Code hook mode",
          )
          .argument("[directory]", "project folder (`claude`: set up hook mode in this checkout)", ".")
          .option("--force", "overwrite an existing loop.yaml")
          .option("-o, --output <file>", "where to write the spec")
          .option("--remove", "with `init claude`: take out exactly what it added")
          .option(
            "--plugin <folder>",
            "with `init claude`: write a Claude Code plugin in a local marketplace folder",
          )
          .action(run(async () => (await import("./commands/init-command.ts")).initCommand)),
    ],
    [
      "hook",
      (command) =>
        command
          .description("Claude Code hook mode: stop, subagent-stop, prompt, post-tool (JSON on stdin), close")
          .argument("<event>", "the hook event")
          .action(
            run(
              async () => async (event: string) => (await import("../hooks/hook-main.ts")).runHook([event]),
            ),
          ),
    ],
    [
      "validate",
      (command) =>
        command
          .description("check a spec, its engines and gate commands, and print what the loop would do")
          .argument("[spec]", "spec file", "loop.yaml")
          .action(run(readCommandForms.validate.load)),
    ],
    [
      "run",
      (command) =>
        command
          .description(
            "start a loop in the foreground (Ctrl-C cancels it cleanly), or queue it for `serve` with --detach",
          )
          .argument("[spec]", "spec file", "loop.yaml")
          .option("--json", "print one JSON event per line (--detach: the queued loop as JSON)")
          .option(
            "--detach",
            "validate and create the loop, then queue it for the service (`loopwright serve`)",
          )
          .action(run(async () => (await import("./commands/run-loop-command.ts")).runLoopCommand)),
    ],
    [
      "resume",
      (command) =>
        command
          .description("continue a crashed, paused or stopped loop")
          .argument("<loop>", "loop name or id")
          .option("--json", "print one JSON event per line")
          .action(run(async () => (await import("./commands/run-loop-command.ts")).resumeLoopCommand)),
    ],
    [
      "pr-comments",
      (command) =>
        command
          .description(
            "check a loop's pull request once for /loopwright review comments and run their rounds (cron, CI on issue_comment)",
          )
          .argument("<loop>", "loop name or id")
          .option("--json", "print one JSON event per line")
          .action(run(async () => (await import("./commands/pr-comments-command.ts")).prCommentsCommand)),
    ],
    [
      "ls",
      (command) =>
        command
          .description("list loops (of the current repository, or all with --all)")
          .option("--all", "loops of every repository")
          .option("--json", "machine-readable output")
          .action(run(readCommandForms.ls.load)),
    ],
    [
      "show",
      (command) =>
        command
          .description("a loop's iterations: commit, gates, verdict, fingerprint, brief size, cost, duration")
          .argument("<loop>", "loop name or id")
          .option("--json", "machine-readable output")
          .action(run(readCommandForms.show.load)),
    ],
    [
      "report",
      (command) =>
        command
          .description("the final report in Markdown")
          .argument("<loop>", "loop name or id")
          .option("--json", "machine-readable output")
          .action(run(async () => (await import("./commands/report-command.ts")).reportCommand)),
    ],
    [
      "logs",
      (command) =>
        command
          .description("gate logs of a loop (the last iteration unless --iteration)")
          .argument("<loop>", "loop name or id")
          .option("--iteration <n>", "iteration number")
          .option("--gate <id>", "only this gate")
          .action(run(async () => (await import("./commands/logs-command.ts")).logsCommand)),
    ],
    [
      "brief",
      (command) =>
        command
          .description("the exact brief sent to the maker")
          .argument("<loop>", "loop name or id")
          .option("--iteration <n>", "iteration number (default: the last)")
          .action(run(async () => (await import("./commands/logs-command.ts")).briefCommand)),
    ],
    [
      "steer",
      (command) =>
        command
          .description("change goal, gates or budget; applied at the next iteration boundary")
          .argument("<loop>", "loop name or id")
          .option("--goal <text>", "the new goal")
          .option(
            "--add-gate <yaml>",
            "a gate as YAML, e.g. '{id: lint, kind: lint-clean, run: npm run lint}'",
            collect,
            [],
          )
          .option("--remove-gate <id>", "a gate id to remove", collect, [])
          .option("--budget <key=value>", "e.g. maxIterations=5 or wallClockPerIteration=30m", collect, [])
          .action(run(async () => (await import("./commands/control-commands.ts")).steerCommand)),
    ],
    [
      "pause",
      (command) =>
        command
          .description("let the current iteration finish, then wait (run exits 75)")
          .argument("<loop>", "loop name or id")
          .action(run(async () => (await import("./commands/control-commands.ts")).pauseCommand)),
    ],
    [
      "cancel",
      (command) =>
        command
          .description("kill the running turn, commit its work, stop with user_cancelled")
          .argument("<loop>", "loop name or id")
          .action(run(async () => (await import("./commands/control-commands.ts")).cancelCommand)),
    ],
    [
      "rm",
      (command) =>
        command
          .description("remove a stopped loop's worktrees, logs and record (the branch only with --branch)")
          .argument("<loop>", "loop name or id")
          .option("--branch", "also delete the loop's branch")
          .action(run(async () => (await import("./commands/remove-command.ts")).removeCommand)),
    ],
    [
      "serve",
      (command) =>
        command
          .description(
            "the service: the HTTP API and dashboard; runs queued loops in the background within caps, recovers interrupted ones, fires schedules",
          )
          .option("--host <address>", "address to listen on", "127.0.0.1")
          .option("--port <n>", "port to listen on", "4477")
          .option("--max-active <n>", "loops active at once, foreground runs included (0: no limit)", "4")
          .option("--max-per-provider <caps>", "loops at once per provider, e.g. anthropic=2,openai=2")
          .option(
            "--idle-controllers <n>",
            "places for loops kept ready in controllers started ahead, so a loop starts at once",
            "2",
          )
          .option(
            "--loops-per-controller <n>",
            "loops one controller process runs in its life (1: a process per loop; a loop whose controller died runs alone)",
            "4",
          )
          .option("--token <token>", "required with a --host other than loopback (default: LOOPWRIGHT_TOKEN)")
          .option(
            "--allow-host <names>",
            "more Host names to answer besides the bound address, e.g. a reverse proxy's (name, or name:port; comma-separated)",
          )
          .action(run(async () => (await import("./commands/serve-command.ts")).serveCommand)),
    ],
    [
      "schedules",
      (command) =>
        command
          .description(
            "schedules registered by run --detach: next firing and latest firings (--remove drops one)",
          )
          .option("--all", "schedules of every repository")
          .option("--json", "machine-readable output")
          .option("--remove <name>", "remove this schedule (the loops it started stay)")
          .action(run(async () => (await import("./commands/schedules-command.ts")).schedulesCommand)),
    ],
    [
      "schema",
      (command) =>
        command
          .description("print the spec's JSON Schema")
          .action(run(async () => (await import("./commands/schema-command.ts")).schemaCommand)),
    ],
    [
      "doctor",
      (command) =>
        command
          .description(
            "which agent CLIs are installed, their versions, credentials, providers and cost reporting",
          )
          .option("--json", "machine-readable output")
          .option(
            "--spec <file>",
            "check the forge as this spec's finish settings name it (and warn about its CI watch)",
          )
          .action(run(async () => (await import("./commands/doctor-command.ts")).doctorCommand)),
    ],
    [
      "mock-model",
      (command) =>
        command
          .description("serve a scripted model over the Anthropic and OpenAI wire protocols on 127.0.0.1")
          .requiredOption("--script <file>", "the script of turns (YAML or JSON)")
          .option("--port <n>", "port to listen on (default: any free port)")
          .option("--log <file>", "append every request as a JSON line")
          .action(run(async () => (await import("./commands/mock-model-command.ts")).mockModelCommand)),
    ],
    [
      "agent",
      (command) =>
        command
          .description("run the built-in agent on a prompt in the current directory, streaming what it does")
          .argument("<prompt>", "the task")
          .option(
            "--model <id>",
            "e.g. anthropic:claude-sonnet-4-6, openai:gpt-5.5, openai-compatible:NAME@URL",
          )
          .option("--read-only", "read, search and allowlisted commands only: no writes, no shell")
          .option("--max-turns <n>", "stop after this many model calls (0 = no limit)")
          .option("--api-key-env <name>", "the environment variable holding the model server's key")
          .action(run(async () => (await import("./commands/agent-command.ts")).agentCommand)),
    ],
    [
      "demo",
      (command) =>
        command
          .description("run a real loop on a sample project with the scripted engine (no API key needed)")
          .option("--json", "print one JSON event per line")
          .option("--keep", "keep the temporary repository and print where it is")
          .option(
            "--engine <name>",
            "rehearse with a real agent CLI (claude-code, codex, copilot) against a scripted model",
          )
          .action(run(async () => (await import("./commands/demo-command.ts")).demoCommand)),
    ],
  ];
  // Only the command asked for is defined when the first word names one (each definition costs):
  // everything else (help, an unknown command, an option first) sees them all.
  const asked = definitions.filter(([name]) => name === wanted);
  for (const [name, define] of asked.length > 0 ? asked : definitions) define(program.command(name));
}
