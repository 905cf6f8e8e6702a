// Package settings reads Gemini CLI's settings files, so a Gemini CLI
// user's configuration works in gemini-ls unchanged: the system defaults,
// the user's ~/.gemini/settings.json, each workspace root's
// .gemini/settings.json (only in a folder the user trusts, trust.go) and
// the system settings, merged in that order as Gemini CLI merges them
// (load.go, merge.go); an editor's options go over them (With). It imports
// nothing of gemini-ls: cmd and the front ends read settings and hand each
// part to what it configures.
package settings
