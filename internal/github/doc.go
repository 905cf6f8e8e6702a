// Package github is a small client of GitHub's REST API: what gemini-ls
// needs of it to run in a GitHub Actions runner (gemini-ls action) and,
// from the editor, to start and follow such a run. It speaks plain JSON
// over net/http to one API root (GITHUB_API_URL in a runner,
// https://api.github.com by default) with a token its caller gives.
//
// Invariants:
//   - Every request carries the token as "Authorization: Bearer", the
//     media type application/vnd.github+json and the API version it was
//     written against (APIVersion); nothing else of the caller's
//     environment is read here.
//   - A response body is read to at most MaxResponse bytes: a hostile or
//     broken server cannot make the client hold more.
//   - An error names what was being done (creating a pull request for
//     branch x…) and, when GitHub said, its status and its message; it
//     never holds the token.
//   - The client holds no state that changes: one Client serves any
//     number of goroutines.
//
// The fake of the same API, for tests, is package githubtest.
package github
