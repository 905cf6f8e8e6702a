// Package skills finds Gemini CLI's agent skills (docs cli/skills.md): a
// skill is a directory holding a SKILL.md whose front matter names it
// and says what it is for, and whose body are the instructions the model
// receives when it activates the skill (tools' activate_skill).
//
// Discovery reads the tiers Gemini CLI reads, lowest precedence first
// (skillManager.ts): extension skill directories (Config.Extensions),
// the user's (~/.gemini/skills, then ~/.agents/skills), then each
// trusted workspace root's (.gemini/skills, then .agents/skills; the
// first root last, so it wins). In each directory, SKILL.md itself and
// every <subdirectory>/SKILL.md are skills, as Gemini CLI's glob finds
// them (no hidden directories). A later skill of the same name replaces
// an earlier one, keeping its place in the list; the user is warned of
// the conflict in Gemini CLI's words.
//
// FolderStructure draws a skill's resources for the model as Gemini CLI
// does; WorkspaceStructure draws a workspace root (a subagent's
// environment context), naming nothing the workspace's ignore rules
// ignore.
//
// Invariants:
//   - Nothing of an untrusted root is read: its skill directories are
//     only noticed, so the user is told why their skills are missing.
//   - A SKILL.md that cannot be used (unreadable, no front matter, no
//     name or description) is skipped and reported with its path; it
//     never stops the others.
//   - Front matter is read as Gemini CLI reads it (skillLoader.ts):
//     YAML's name and description, else its simple "key: value" lines,
//     so a description holding a colon still works; a name's : \ / < > *
//     ? " | become -. The body is the text after the front matter,
//     trimmed.
//   - skills.disabled names (any case) are disabled: listed by /skills,
//     never offered to the model.
//   - A Catalog is read by every session while /skills reload and enable
//     or disable replace what it holds (Reload, SetDisabled): readers get
//     copies, so a request sees one whole discovery or the next.
package skills
