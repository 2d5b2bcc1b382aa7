/**
 * Comments on a GitLab merge request: its discussions' notes (system notes left out), a diff note with
 * its position (new path and line); write access is a member access level of Developer (30) or more,
 * inherited ones included; a reply is a note in the same discussion.
 */
import type { Gitlab } from "@gitbeaker/rest";
import type { PullRequestComment, PullRequestComments } from "./forge-client.ts";

/** The Developer role: the least that may push. */
const developerAccess = 30;

interface Note {
  id: number;
  body: string;
  system?: boolean;
  author?: { id: number; username: string };
  created_at: string;
  position?: { new_path?: string; new_line?: number | null; old_path?: string; old_line?: number | null };
}

export function gitlabComments(
  api: InstanceType<typeof Gitlab>,
  project: string,
  webUrl: (number: number) => Promise<string | undefined>,
  fail: (error: unknown) => never,
): PullRequestComments {
  const userIds = new Map<string, number>();
  return {
    async list(number) {
      const discussions = (await api.MergeRequestDiscussions.all(project, number, {
        perPage: 100,
        maxPages: 10,
      }).catch(fail)) as unknown as { id: string; notes?: Note[] }[];
      const page = await webUrl(number);
      const comments: PullRequestComment[] = [];
      for (const discussion of discussions) {
        for (const note of discussion.notes ?? []) {
          if (note.system || !note.author) continue;
          userIds.set(note.author.username, note.author.id);
          const position = note.position;
          comments.push({
            id: `note:${note.id}`,
            kind: position ? "diff" : "conversation",
            author: note.author.username,
            body: note.body,
            url: page ? `${page}#note_${note.id}` : undefined,
            createdAt: note.created_at,
            path: position?.new_path ?? position?.old_path,
            line: position?.new_line ?? position?.old_line ?? undefined,
            thread: discussion.id,
          });
        }
      }
      return comments.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async canWrite(author) {
      const id = userIds.get(author);
      if (id === undefined) return false;
      try {
        const member = (await api.ProjectMembers.show(project, id, { includeInherited: true })) as {
          access_level?: number;
        };
        return (member.access_level ?? 0) >= developerAccess;
      } catch (error) {
        const status = (error as { cause?: { response?: Response } })?.cause?.response?.status;
        if (status === 404) return false;
        return fail(error);
      }
    },
    async reply(number, comment, body) {
      const note = (
        comment.thread
          ? await api.MergeRequestDiscussions.addNote(project, number, comment.thread, body).catch(fail)
          : await api.MergeRequestNotes.create(project, number, body).catch(fail)
      ) as { id: number };
      const page = await webUrl(number);
      return page ? `${page}#note_${note.id}` : undefined;
    },
  };
}
