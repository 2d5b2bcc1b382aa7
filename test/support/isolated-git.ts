/**
 * Isolates git run with `env` from the machine's configuration, like a fresh box: `globalConfig` (an
 * empty file) as its global config, no system config, and no identity from the environment (a commit
 * then needs `-c user.name=… -c user.email=…`). Changes `env` in place.
 */
export function isolateGit(env: NodeJS.ProcessEnv, globalConfig: string): void {
  env.GIT_CONFIG_GLOBAL = globalConfig;
  env.GIT_CONFIG_NOSYSTEM = "1";
  for (const name of [
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "EMAIL",
  ]) {
    delete env[name];
  }
}
