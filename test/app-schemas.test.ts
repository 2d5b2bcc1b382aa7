/**
 * The application layer's schemas: every exported one converts to JSON Schema both ways (the API builds
 * its OpenAPI document from them), and `parseRequest` names the wrong field, nested keys included.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import * as actor from "../src/app/actor.ts";
import { parseRequest } from "../src/app/parse-request.ts";
import * as actions from "../src/app/schemas/action-schemas.ts";
import * as files from "../src/app/schemas/file-schemas.ts";
import * as iterations from "../src/app/schemas/iteration-schemas.ts";
import * as loops from "../src/app/schemas/loop-schemas.ts";
import * as reports from "../src/app/schemas/report-schemas.ts";
import * as schedules from "../src/app/schemas/schedule-schemas.ts";
import * as summaries from "../src/app/schemas/summary-schemas.ts";
import * as timeline from "../src/app/schemas/timeline-schemas.ts";
import { FieldError } from "../src/errors.ts";

test("every exported schema converts to JSON Schema, as request and as response", () => {
  let count = 0;
  for (const module of [actor, actions, files, iterations, loops, reports, schedules, summaries, timeline]) {
    for (const [name, value] of Object.entries(module)) {
      if (!(value instanceof z.ZodType)) continue;
      for (const io of ["input", "output"] as const) {
        assert.doesNotThrow(() => z.toJSONSchema(value, { io }), `${name} (${io})`);
      }
      count++;
    }
  }
  assert.ok(count >= 25, `${count} schemas`);
});

test("parseRequest: the parsed value, or a FieldError naming the first wrong field", () => {
  assert.deepEqual(parseRequest(timeline.timelinePageRequestSchema, { after: "12" }), {
    after: 12,
    limit: 200,
  });
  const cases: [z.ZodType, unknown, string][] = [
    [actions.steerRequestSchema, { budget: { maxIterations: [] } }, "budget.maxIterations"],
    [actions.steerRequestSchema, { removeGates: ["a", 3] }, "removeGates.1"],
    [actions.steerRequestSchema, { goal: "x", extra: 1 }, "extra"],
    [actions.steerRequestSchema, null, "body"],
    [files.gateLogReadRequestSchema, { gate: "t", offset: 1.5 }, "offset"],
    [actor.actorSchema, { via: "mail", name: "x" }, "via"],
  ];
  for (const [schema, input, field] of cases) {
    assert.throws(
      () => parseRequest(schema, input),
      (error: unknown) => error instanceof FieldError && error.field === field && error.problem.length > 0,
      JSON.stringify(input),
    );
  }
});
