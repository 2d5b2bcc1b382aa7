/**
 * JUnit XML reports (node's junit reporter, pytest --junitxml, Maven Surefire, jest-junit, ...): a
 * `<failure>` or `<error>` inside a `<testcase>`. The name is the nested `<testsuite>` path when suites
 * nest, else the test case's class name, then the test case's name; `file` and `line` attributes and
 * the frames in the failure's text are the anchors. Tags may share a line or span several lines' text.
 *
 * Passing test cases are not read one by one (a report holds one line per test): the count of tests
 * comes from node's closing `<!-- pass N -->` / `<!-- fail N -->` comments where present, else from
 * the `tests`, `skipped` and `disabled` attributes of the innermost suites.
 */
import { detached, type FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

const tagPattern = /<(\/?)(testsuites?|testcase|failure|error)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const attributePattern = /([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const nodeCountComment = /<!-- (pass|fail) (\d+) -->/;
const frameLine = /^\s*at /;
const testCaseTag = /<testcase\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

interface TestCase {
  name: string;
  classname: string;
  file: string;
  line: string;
}

interface Suite {
  name: string;
  /** Tests that ran in it: `tests` less `skipped` and `disabled`. */
  executed: number;
  hasChildSuites: boolean;
}

export const junitXml: FormatFactory = (context) => new JunitXmlParser(context);

class JunitXmlParser implements FormatParser {
  readonly runner = "junit-xml";
  readonly triggers = ["<testsuite", "</testsuite", "<failure", "<error", "<!-- pass", "<!-- fail"];
  engaged = false;
  private readonly context: FormatContext;
  private suites: Suite[] = [];
  private suiteExecuted: number | null = null;
  private commentExecuted: number | null = null;
  private testCase: TestCase | null = null;
  private testCaseLine = 0;
  private draft: FailureDraft | null = null;
  private hasMessage = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
    const comment = nodeCountComment.exec(text);
    if (comment) {
      this.commentExecuted = (this.commentExecuted ?? 0) + Number(comment[2]);
      return;
    }
    let textStart = 0;
    tagPattern.lastIndex = 0;
    for (let tag = tagPattern.exec(text); tag; tag = tagPattern.exec(text)) {
      if (this.draft && tag.index > textStart) this.body(text.slice(textStart, tag.index));
      textStart = tag.index + tag[0].length;
      this.tag(tag[1] === "/", tag[2], tag[3], lineNumber);
    }
    if (this.draft && textStart < text.length) this.body(text.slice(textStart));
  }

  end(): void {
    this.finish();
    const executed = this.commentExecuted ?? this.suiteExecuted;
    if (executed !== null) this.context.collector.countTests(this.runner, executed);
  }

  private tag(closing: boolean, element: string, attributeText: string, lineNumber: number): void {
    const selfClosing = attributeText.trimEnd().endsWith("/");
    if (element === "testsuite") this.suite(closing, selfClosing, attributeText);
    else if (element === "testcase") {
      this.testCase = closing || selfClosing ? null : caseOf(attributeText);
      this.testCaseLine = lineNumber;
      if (closing) this.finish();
    } else if (element === "failure" || element === "error") {
      if (closing) this.finish();
      else this.start(attributeText, selfClosing, lineNumber);
    }
  }

  private suite(closing: boolean, selfClosing: boolean, attributeText: string): void {
    this.context.collector.noteRunner(this.runner);
    if (closing) {
      const suite = this.suites.pop();
      if (suite && !suite.hasChildSuites) this.suiteExecuted = (this.suiteExecuted ?? 0) + suite.executed;
      return;
    }
    const values = attributes(attributeText);
    const executed =
      Number(values.tests ?? 0) - Number(values.skipped ?? 0) - Number(values.disabled ?? 0) || 0;
    const parent = this.suites.at(-1);
    if (parent) parent.hasChildSuites = true;
    if (selfClosing) this.suiteExecuted = (this.suiteExecuted ?? 0) + Math.max(executed, 0);
    else
      this.suites.push({
        name: detached(values.name ?? ""),
        executed: Math.max(executed, 0),
        hasChildSuites: false,
      });
  }

  private start(attributeText: string, selfClosing: boolean, lineNumber: number): void {
    this.finish();
    const collector = this.context.collector;
    // The test case's opening tag is on this line or, in most reports, just above it.
    const testCase = (this.testCaseLine === lineNumber ? this.testCase : this.testCaseAbove()) ?? {
      name: "",
      classname: "",
      file: "",
      line: "",
    };
    const suiteNames = this.suites.map((suite) => suite.name);
    const path = suiteNames.length >= 2 ? suiteNames : testCase.classname ? [testCase.classname] : suiteNames;
    const name = [...path.filter(Boolean), testCase.name || "(unnamed test case)"].join(" > ");
    const draft = collector.draft(this.runner, name, lineNumber);
    if (testCase.file && testCase.line) collector.anchor(draft, testCase.file, Number(testCase.line));
    const message = attributes(attributeText).message ?? "";
    for (const line of message.split("\n")) collector.message(draft, line);
    this.hasMessage = message.trim().length > 0;
    this.draft = draft;
    this.blockLines = 0;
    if (selfClosing) this.finish();
    else this.engaged = true;
  }

  private testCaseAbove(): TestCase | null {
    for (let distance = 1; distance <= 3; distance++) {
      const line = this.context.nearby.before(distance);
      let found: TestCase | null = null;
      testCaseTag.lastIndex = 0;
      for (let tag = testCaseTag.exec(line); tag; tag = testCaseTag.exec(line)) {
        found = tag[1].trimEnd().endsWith("/") ? null : caseOf(tag[1]);
      }
      if (found) return found;
    }
    return null;
  }

  /** Text inside a `<failure>` or `<error>` element (part of one line). */
  private body(raw: string): void {
    const collector = this.context.collector;
    const draft = this.draft as FailureDraft;
    if (++this.blockLines > collector.limits.blockLines) return;
    const text = decodeEntities(raw);
    if (frameLine.test(text)) collector.frame(draft, text);
    else {
      collector.anchorsIn(draft, text);
      if (!this.hasMessage) collector.message(draft, text);
    }
  }

  private finish(): void {
    if (this.draft) this.context.collector.commit(this.draft);
    this.draft = null;
    this.engaged = false;
  }
}

function caseOf(attributeText: string): TestCase {
  const values = attributes(attributeText);
  return {
    name: values.name ?? "",
    classname: values.classname ?? "",
    file: values.file ?? "",
    line: values.line ?? "",
  };
}

function attributes(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  attributePattern.lastIndex = 0;
  for (let match = attributePattern.exec(text); match; match = attributePattern.exec(text)) {
    values[match[1]] = decodeEntities(match[2] ?? match[3] ?? "");
  }
  return values;
}

const namedEntities: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(Number(entity.slice(1)));
    return namedEntities[entity] ?? whole;
  });
}
