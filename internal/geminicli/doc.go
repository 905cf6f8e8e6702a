// Package geminicli runs Gemini CLI 0.61, the reference gemini-ls keeps
// faith with, for tests that check the two against each other: a server
// one adds that the other lists, a session one saves that the other
// resumes.
//
// Gemini CLI is installed from npm, pinned by npm/package-lock.json, with
// `make gemini-cli` (which `make test` runs first). A test that needs it
// and does not find it fails under CI and is skipped elsewhere, saying how
// to install it.
//
// Invariants: Gemini CLI never sees the caller's home. Every command runs
// with the HOME the test gives, no Google credentials or endpoints from
// the caller's environment, auto-update and telemetry off; pointed at a
// fake Gemini API when the test gives one.
package geminicli
