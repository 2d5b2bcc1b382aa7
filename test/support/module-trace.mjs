// Preload (`node --import <this file>`): appends the URL of every module the process loads, one a line,
// to the file named by LOOPWRIGHT_MODULE_TRACE, and at exit every Node builtin it loaded after this
// file as `builtin:<name>` (internal ones included, however they were reached: `import`,
// `process.getBuiltinModule`, or another builtin). Lets a test see what a real command loads.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.LOOPWRIGHT_MODULE_TRACE;
if (file) {
  const before = new Set(process.moduleLoadList);
  registerHooks({
    load(url, context, next) {
      appendFileSync(file, `${url}\n`);
      return next(url, context);
    },
  });
  process.on("exit", () => {
    const added = process.moduleLoadList.filter(
      (name) => !before.has(name) && name.startsWith("NativeModule "),
    );
    appendFileSync(file, added.map((name) => `builtin:${name.slice("NativeModule ".length)}\n`).join(""));
  });
}
