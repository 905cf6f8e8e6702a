// Package settings reads Gemini CLI's settings files, so a Gemini CLI
// user's configuration works in gemini-ls unchanged: the user's
// ~/.gemini/settings.json and each workspace root's .gemini/settings.json,
// the workspace's values winning, a root's file applying only in a folder
// the user trusts (trust.go). It imports nothing of gemini-ls: cmd and the
// front ends read settings and hand each part to what it configures.
package settings
