import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { gateSchema } from "../src/core/spec.ts";
import {
  codexArguments,
  modelOfConfig,
  modelOfSpec,
  profileOfArgs,
  providerKeyVariable,
} from "../src/engines/codex/codex-arguments.ts";
import { strictOutputSchema, withoutNulls } from "../src/engines/codex/strict-output-schema.ts";
import { checkVerdict, verdictJsonSchema } from "../src/verify/verdict.ts";

describe("codex exec command line per role", () => {
  const common = ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral"];

  test("the maker edits in codex's workspace-write sandbox; the prompt comes on stdin", () => {
    assert.deepEqual(codexArguments({ role: "maker", readOnly: false, model: "gpt-5.5", args: ["--oss"] }), [
      ...common,
      "-s",
      "workspace-write",
      "-m",
      "gpt-5.5",
      "--oss",
      "-",
    ]);
  });

  test("a sandbox flag in the spec's args replaces the maker's (codex refuses two)", () => {
    for (const args of [["-s", "danger-full-access"], ["--sandbox=danger-full-access"], ["--yolo"]]) {
      const argv = codexArguments({ role: "maker", readOnly: false, args });
      assert.deepEqual(argv, [...common, ...args, "-"]);
    }
  });

  test("verifier and replanner are read-only whatever the args say, with the answer's schema", () => {
    const argv = codexArguments({
      role: "verifier",
      readOnly: true,
      args: ["--sandbox", "danger-full-access", "-c", "model_reasoning_effort=high", "--yolo"],
      schemaPath: "/turn/codex-verifier-output-schema.json",
    });
    assert.deepEqual(argv, [
      ...common,
      "-s",
      "read-only",
      "--output-schema",
      "/turn/codex-verifier-output-schema.json",
      "-c",
      "model_reasoning_effort=high",
      "-",
    ]);
  });

  test("the model priced: the spec's, else the one its args or the user's config name", () => {
    assert.equal(modelOfSpec("gpt-5", ["-m", "o4-mini"]), "gpt-5");
    assert.equal(modelOfSpec(undefined, ["-m", "o4-mini"]), "o4-mini");
    assert.equal(modelOfSpec(undefined, ["--model=gpt-4.1"]), "gpt-4.1");
    assert.equal(modelOfSpec(undefined, ["-c", 'model="gpt-5-mini"']), "gpt-5-mini");
    assert.equal(modelOfSpec(undefined, ["-c", "model_reasoning_effort=high"]), undefined);
    assert.equal(modelOfConfig('# mine\nmodel = "gpt-5.5"\n[profiles.fast]\nmodel = "o4-mini"\n'), "gpt-5.5");
    assert.equal(modelOfConfig('model_provider = "x"\n[profiles.fast]\nmodel = "o4-mini"\n'), undefined);
  });

  test("a profile's model wins over the top-level one: named in args or by the config's `profile`", () => {
    const config =
      'model = "gpt-5.5"\nprofile = "fast"\n[profiles.fast]\nmodel = "o4-mini"\n[profiles."deep"]\nmodel = "o3"\n';
    assert.equal(modelOfConfig(config), "o4-mini");
    assert.equal(modelOfConfig(config, profileOfArgs(["--profile", "deep"])), "o3");
    assert.equal(modelOfConfig(config, profileOfArgs(["-p", "none"])), "gpt-5.5");
    assert.equal(profileOfArgs(["--profile=deep"]), "deep");
  });

  test("the key variable of the config's model provider", () => {
    const config =
      'model_provider = "house"\n[model_providers.house]\nenv_key = "HOUSE_KEY"\n[model_providers.other]\nenv_key = "OTHER"\n';
    assert.equal(providerKeyVariable(config), "HOUSE_KEY");
    assert.equal(providerKeyVariable('[model_providers.house]\nenv_key = "HOUSE_KEY"\n'), undefined);
  });
});

describe("the answer's schema in OpenAI's strict subset", () => {
  /** Every rule strict mode enforces on a schema, as a list of violations. */
  function strictViolations(schema: unknown, path = "$"): string[] {
    if (Array.isArray(schema))
      return schema.flatMap((entry, index) => strictViolations(entry, `${path}[${index}]`));
    if (typeof schema !== "object" || schema === null) return [];
    const node = schema as Record<string, unknown>;
    const problems: string[] = [];
    for (const keyword of ["default", "minLength", "maxLength", "$schema", "oneOf"])
      if (keyword in node) problems.push(`${path}: ${keyword}`);
    if (node.type === "object") {
      const keys = Object.keys((node.properties as object) ?? {});
      if (node.additionalProperties !== false) problems.push(`${path}: open object`);
      if (JSON.stringify(node.required) !== JSON.stringify(keys)) problems.push(`${path}: not all required`);
    }
    for (const [key, value] of Object.entries(node))
      problems.push(...strictViolations(value, `${path}.${key}`));
    return problems;
  }

  test("the loop's own verdict and replan schemas break the rules; rewritten they keep them", () => {
    const replan = z.toJSONSchema(
      z.object({ approach: z.string().min(1), hypotheses: z.array(z.string()).default([]) }),
      { io: "input" },
    );
    for (const schema of [verdictJsonSchema(), replan]) {
      assert.notDeepEqual(strictViolations(schema), []);
      assert.deepEqual(strictViolations(strictOutputSchema(schema)), []);
    }
  });

  test("a strict answer (left-out fields as null) becomes a verdict the loop accepts", () => {
    const answer = {
      overall: "fail",
      gates: [
        { id: "tests", passed: true, reason: null, evidence: [{ file: "src/add.js", line: null }] },
        { id: "docs", passed: false, reason: "README not updated", evidence: null },
      ],
      notes: null,
    };
    const gates = [
      gateSchema.parse({ id: "tests", kind: "tests-pass", run: "node --test" }),
      gateSchema.parse({ id: "docs", kind: "agent-check", assert: "The README explains add." }),
    ];
    assert.equal(checkVerdict(answer, gates).valid, false);
    const check = checkVerdict(withoutNulls(answer), gates);
    assert.ok(check.valid, JSON.stringify(check));
    assert.deepEqual(check.verdict.gates[1].evidence, []);
  });
});
