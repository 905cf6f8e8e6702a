// Package githubtest is a loopback fake of the part of GitHub's REST API
// package github calls, for tests where GitHub is unreachable: pull
// requests (create, list by head, update), issue comments, a
// collaborator's permission, workflow dispatches, workflow runs and
// their artifacts, of one repository.
//
// Invariants:
//   - Every request is recorded (Requests), whatever its answer.
//   - A request without "Authorization: Bearer <the token>" is answered
//     401 Bad credentials, as GitHub answers, and changes nothing.
//   - A request for another repository, or a path or method the fake
//     does not serve, is answered 404 Not Found, as GitHub answers.
//   - Bodies are read to at most 1 MiB; answers have GitHub's shapes
//     (the fields package github reads, and a few more).
//   - One mutex guards all state: tests read it while the binary under
//     test calls the fake.
package githubtest
