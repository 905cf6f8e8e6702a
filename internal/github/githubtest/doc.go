// Package githubtest is a loopback fake of the part of GitHub's REST API
// gemini-ls calls, for tests where GitHub is unreachable: the
// repository, its branches, pull requests (create, list by head, read,
// update), issue comments, a collaborator's permission, the token's
// user, workflow dispatches, workflow runs (list, read, cancel) and
// their artifacts, of one repository. New serves it in a test;
// NewServer anywhere (cmd/fakegithub, which plays GitHub's runner for
// the editor tests, runs the real gemini-ls action for each run).
//
// Invariants:
//   - Every request is recorded (Requests), whatever its answer, but
//     GET /_fake/state, the tests' own view of everything held (State).
//   - A request without the token ("Authorization: Bearer" or "token"),
//     or the token of a run under way, is answered 401 Bad credentials,
//     as GitHub answers, and changes nothing.
//   - A request for another repository, or a path or method the fake
//     does not serve, is answered 404 Not Found, as GitHub answers.
//   - Bodies are read to at most 1 MiB; answers have GitHub's shapes
//     (the fields package github reads, and a few more).
//   - Runs: a dispatch, or a comment naming @gemini-ls on a pull request
//     posted with the token (never with a run's token: GitHub's
//     GITHUB_TOKEN starts no workflow), queues a run titled as
//     gemini-ls's workflow's run-name titles it (RunName). With a
//     Runner, one goroutine plays the queued runs oldest first, one at a
//     time (queued, in_progress, completed), so tests are deterministic;
//     without one a run stays queued until FinishRun. Cancelling ends a
//     queued run at once and a running one through its Runner's
//     context; Close cancels the run under way and waits for it.
//   - One mutex guards all state: tests read it while the binary under
//     test calls the fake.
package githubtest
