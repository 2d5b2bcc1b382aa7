/**
 * A CI job log as the test runner printed it, for the digesters: without the timestamp GitHub and
 * Gitea/Forgejo Actions put before every line (`2026-12-01T10:00:01.1234567Z `), and without GitLab's
 * collapsible-section markers (`section_start:1700000000:step_script\r\e[0K`). Colours stay: the
 * digesters clean those as they do for local gate logs. Pure.
 */
const escapeCharacter = String.fromCharCode(27);
const gitlabSection = new RegExp(
  `(?:${escapeCharacter}\\[0K)?section_(?:start|end):\\d+:[\\w.-]+(?:\\[[^\\]\\r\\n]*\\])?\\r?(?:${escapeCharacter}\\[0K)?`,
  "g",
);

export function plainCiLog(text: string): string {
  return text
    .replace(/^\uFEFF/, "")
    .replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm, "")
    .replace(gitlabSection, "");
}
