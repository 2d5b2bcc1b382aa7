/** The dashboard's URLs, built in one place so that routes and links never disagree. */

const segment = encodeURIComponent;

export const links = {
  loops: () => "/",
  loopsFragment: () => "/fragments/loops",
  newLoop: () => "/loops/new",
  loop: (loopId: string) => `/loops/${segment(loopId)}`,
  loopFragment: (loopId: string) => `/loops/${segment(loopId)}/fragments/live`,
  iteration: (loopId: string, iteration: number) => `/loops/${segment(loopId)}#iteration-${iteration}`,
  /** One iteration alone, in full (older iterations are one line on the loop's page). */
  iterationPage: (loopId: string, iteration: number) => `/loops/${segment(loopId)}/iterations/${iteration}`,
  /** `iteration` 0 is the base commit's run (the baseline). `from` is the first line shown. */
  gateLog: (loopId: string, iteration: number, gateId: string, phase: string, from?: number) =>
    `/loops/${segment(loopId)}/iterations/${iteration}/gates/${segment(gateId)}/${segment(phase)}/log${
      from && from > 1 ? `?from=${from}` : ""
    }`,
  /** The log page scrolled to `line`, with the lines before it in view. */
  gateLogLine: (loopId: string, iteration: number, gateId: string, phase: string, line: number) =>
    `${links.gateLog(loopId, iteration, gateId, phase, pageStart(line))}#L${line}`,
  diff: (loopId: string, iteration: number) => `/loops/${segment(loopId)}/iterations/${iteration}/diff`,
  brief: (loopId: string, iteration: number) => `/loops/${segment(loopId)}/iterations/${iteration}/brief`,
  /** A file as it is at `sha`, read through git. */
  fileAt: (loopId: string, sha: string, path: string, line?: number) =>
    `/loops/${segment(loopId)}/files/${segment(sha)}?path=${segment(path)}${line ? `#L${line}` : ""}`,
  action: (loopId: string, action: "steer" | "pause" | "resume" | "cancel") =>
    `/loops/${segment(loopId)}/${action}`,
};

/** Lines per page of a log. */
export const logPageLines = 2000;

/** The first line of the log page that shows `line` (pages start at 1, 2001, ...). */
export function pageStart(line: number): number {
  return Math.floor((Math.max(1, line) - 1) / logPageLines) * logPageLines + 1;
}
