// Preload (`node --import <this file>`): appends the URL of every module the process loads, one a line,
// to the file named by LOOPWRIGHT_MODULE_TRACE. Lets a test see what a real command loads.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.LOOPWRIGHT_MODULE_TRACE;
if (file) {
  registerHooks({
    load(url, context, next) {
      appendFileSync(file, `${url}\n`);
      return next(url, context);
    },
  });
}
