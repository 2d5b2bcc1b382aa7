/** Every output format the digest recognizes, in the order lines are offered to them; the fallback last. */
import type { FormatFactory } from "./format-parser.ts";
import { biome } from "./formats/biome.ts";
import { cargoTest } from "./formats/cargo-test.ts";
import { eslint } from "./formats/eslint.ts";
import { exunit } from "./formats/exunit.ts";
import { generic } from "./formats/generic.ts";
import { goTest } from "./formats/go-test.ts";
import { jest } from "./formats/jest.ts";
import { junitXml } from "./formats/junit-xml.ts";
import { mocha } from "./formats/mocha.ts";
import { nodeTestSpec } from "./formats/node-test-spec.ts";
import { nodeTestTap } from "./formats/node-test-tap.ts";
import { pytest } from "./formats/pytest.ts";
import { rspec } from "./formats/rspec.ts";
import { tsc } from "./formats/tsc.ts";
import { unittest } from "./formats/unittest.ts";
import { vitest } from "./formats/vitest.ts";

/** One factory per format; each digest builds its own parsers from them. */
export const formatFactories: readonly FormatFactory[] = [
  nodeTestTap,
  nodeTestSpec,
  vitest,
  jest,
  mocha,
  pytest,
  unittest,
  goTest,
  cargoTest,
  junitXml,
  exunit,
  rspec,
  tsc,
  eslint,
  biome,
  generic,
];
