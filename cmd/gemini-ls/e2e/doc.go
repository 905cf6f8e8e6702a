// Package e2e is gemini-ls's end-to-end tests: its TestMain builds the
// binary once (lsptest.RunWithBinary), and every test drives that binary
// as a user's editor, agent client or shell would, against a fake Gemini
// API (internal/agent/geminitest) and, where the two must agree, Gemini CLI 0.61
// itself (internal/geminicli). The tests see only what the binary shows:
// its protocol messages, its output, its exit status and the files it
// leaves. Unit tests of main's own functions stay in cmd/gemini-ls.
package e2e
