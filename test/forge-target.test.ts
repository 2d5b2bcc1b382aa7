/** Which forge, API and repository a remote URL, the spec and the environment name. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveForgeTarget } from "../src/forge/forge-target.ts";

const auto = { forge: "auto" as const };

test("github.com, GitHub Enterprise, gitlab.com, self-hosted GitLab, Gitea on a port, Codeberg", () => {
  const cases: [string, string, string, string][] = [
    ["git@github.com:acme/widget.git", "github", "https://api.github.com", "acme/widget"],
    ["https://github.com/acme/widget", "github", "https://api.github.com", "acme/widget"],
    ["https://gitlab.com/group/sub/widget.git", "gitlab", "https://gitlab.com/api/v4", "group/sub/widget"],
    [
      "ssh://git@gitlab.example.org:2222/team/widget.git",
      "gitlab",
      "https://gitlab.example.org/api/v4",
      "team/widget",
    ],
    [
      "https://gitea.example.org:3000/acme/widget.git",
      "gitea",
      "https://gitea.example.org:3000/api/v1",
      "acme/widget",
    ],
    ["https://codeberg.org/acme/widget.git", "gitea", "https://codeberg.org/api/v1", "acme/widget"],
  ];
  for (const [url, forge, api, repository] of cases)
    assert.deepEqual(resolveForgeTarget(auto, url, {}), { target: { forge, api, repository } }, url);
  assert.deepEqual(resolveForgeTarget({ forge: "github" }, "https://git.corp.example/acme/widget.git", {}), {
    target: { forge: "github", api: "https://git.corp.example/api/v3", repository: "acme/widget" },
  });
});

test("the forge's environment variables and explicit fields win over the remote", () => {
  const env = { GITHUB_API_URL: "https://ghe.example/api/v3", GITHUB_REPOSITORY: "acme/other" };
  assert.deepEqual(resolveForgeTarget({ forge: "github" }, "/srv/git/widget.git", env), {
    target: { forge: "github", api: "https://ghe.example/api/v3", repository: "acme/other" },
  });
  assert.deepEqual(
    resolveForgeTarget(
      { forge: "gitlab", api: "http://127.0.0.1:8080/gitlab/api/v4/", repository: "g/w" },
      undefined,
      {},
    ),
    { target: { forge: "gitlab", api: "http://127.0.0.1:8080/gitlab/api/v4", repository: "g/w" } },
  );
});

test("what cannot be told is a problem naming the field to set", () => {
  assert.match(JSON.stringify(resolveForgeTarget(auto, "/srv/git/widget.git", {})), /set finish\.forge/);
  assert.match(
    JSON.stringify(resolveForgeTarget({ forge: "gitea" }, "/srv/git/widget.git", {})),
    /set finish\.api/,
  );
  assert.match(
    JSON.stringify(
      resolveForgeTarget({ forge: "gitea", api: "https://gitea.example" }, "/srv/git/widget.git", {}),
    ),
    /set finish\.repository/,
  );
});
