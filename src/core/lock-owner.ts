/** Who holds a loop's run lock: a controller process, identified well enough to tell it is dead. */
export interface LockOwner {
  runId: string;
  pid: number;
  host: string;
  /** The process start time as the OS reports it (guards against a reused pid). */
  processStart: string;
}
