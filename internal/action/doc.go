// Package action is gemini-ls's runner side on GitHub Actions (gemini-ls
// action): from the event that started the workflow it decides the task,
// or that nothing runs; runs the agent headless on a branch
// gemini/<task> of the workspace's checkout; commits what the agent
// changed with the agent's own summary line; pushes the branch to origin;
// opens (or updates) a draft pull request saying what was done; writes
// the step's outputs and summary; and keeps the session file for an
// artifact step, so the session can be continued elsewhere
// (gemini-ls run --resume FILE).
//
// Invariants:
//   - Prompts from issues and comments are untrusted. An issue labelled
//     or assigned, or a comment naming @gemini-ls, starts the agent only
//     when the person who did it may push to the repository: a comment's
//     author_association is OWNER, MEMBER or COLLABORATOR and GitHub's
//     permission API says admin or write (maintain) for them; for an
//     issue, the sender's permission. Otherwise nothing runs, nothing is
//     pushed, and the step summary says why; the step still succeeds.
//   - The agent cannot change .github/workflows: an admin policy denies
//     its edits (and shell commands naming the directory) there, and
//     whatever changed there anyway is left out of the commit, the pull
//     request saying so. Commits the agent made itself are folded into
//     the one commit (git reset to where the branch started).
//   - Secrets (GEMINI_API_KEY, GOOGLE_API_KEY, GITHUB_TOKEN) are masked
//     first (::add-mask:: on stdout, which Actions reads), and written
//     nowhere: every text this package writes (log lines, the commit
//     message, the pull request, the outputs, the step summary, the
//     session file's copy) has them replaced by ***; a commit whose
//     files hold one is refused before anything is pushed.
//   - Every git command goes through internal/spawn with
//     fetchsource.SafeGitEnv, without the secrets in its environment,
//     and no hooks run (--no-verify). Fetch and push alone get the
//     token, when origin is an https URL: as an extra header in
//     GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n (the checkout keeps no
//     credentials), never in git's arguments or a file.
//   - A comment on a pull request goes on with that pull request's
//     branch only when its head is in this repository (GET pulls/N): a
//     fork's is skipped, saying why, whatever action.yml's step did.
//   - A dispatch's task input is one part of gemini/<task>, checked
//     before anything runs; TaskName always makes one.
//   - GitHub's variables, action.yml's inputs (INPUT_*, under a
//     dispatch's own) and the secrets are read only through the Env Run
//     is given; git alone gets the process's environment, made safe and
//     without the secrets.
package action
