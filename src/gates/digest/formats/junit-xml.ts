/**
 * JUnit XML reports (node's junit reporter, pytest --junitxml, Maven Surefire, jest-junit, ...): a
 * `<failure>` or `<error>` inside a `<testcase>`. The name is the nested `<testsuite>` path when suites
 * nest, else the test case's class name, then the test case's name; `file` and `line` attributes and
 * the frames in the failure's text are the anchors. Tags may share a line or span several lines' text.
 */
import type { FailureDraft } from "../failure-collector.ts";
import type { FormatContext, FormatFactory, FormatParser } from "../format-parser.ts";

const tagPattern = /<(\/?)(testsuites?|testcase|failure|error|skipped)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const attributePattern = /([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const frameLine = /^\s*at /;

interface TestCase {
  name: string;
  classname: string;
  file: string;
  line: string;
  skipped: boolean;
}

export const junitXml: FormatFactory = (context) => new JunitXmlParser(context);

class JunitXmlParser implements FormatParser {
  readonly runner = "junit-xml";
  readonly triggers = [
    "<testsuite[\\s>]",
    "</testsuite>",
    "<testcase[\\s>]",
    "</testcase>",
    "<failure\\b",
    "<error\\b",
  ];
  engaged = false;
  private readonly context: FormatContext;
  private suites: string[] = [];
  private testCase: TestCase | null = null;
  private draft: FailureDraft | null = null;
  private hasMessage = false;
  private blockLines = 0;

  constructor(context: FormatContext) {
    this.context = context;
  }

  line(text: string, lineNumber: number): void {
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
  }

  private tag(closing: boolean, element: string, attributeText: string, lineNumber: number): void {
    const selfClosing = attributeText.trimEnd().endsWith("/");
    const collector = this.context.collector;
    if (element === "testsuite") {
      if (closing) this.suites.pop();
      else if (!selfClosing) this.suites.push(attributes(attributeText).name ?? "");
      collector.noteRunner(this.runner);
    } else if (element === "testcase") {
      if (closing || selfClosing) {
        const testCase = closing ? this.testCase : caseOf(attributeText);
        if (testCase && !testCase.skipped) collector.countTests(this.runner, 1);
        this.testCase = null;
        this.finish();
      } else this.testCase = caseOf(attributeText);
    } else if (element === "skipped") {
      if (this.testCase) this.testCase.skipped = true;
    } else if (element === "failure" || element === "error") {
      if (closing) this.finish();
      else this.start(attributeText, selfClosing, lineNumber);
    }
  }

  private start(attributeText: string, selfClosing: boolean, lineNumber: number): void {
    this.finish();
    const collector = this.context.collector;
    const testCase = this.testCase ?? { name: "", classname: "", file: "", line: "", skipped: false };
    const path =
      this.suites.length >= 2 ? this.suites : testCase.classname ? [testCase.classname] : this.suites;
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
    skipped: false,
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
