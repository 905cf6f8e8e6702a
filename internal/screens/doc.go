// Package screens keeps the committed pictures of the editor tests
// (docs/screenshots) equal to what the tests take, and changed only where
// what they show changed.
//
// The tests write their pictures to build/screenshots: terminal screens
// (tmux capture-pane, .txt) and browser screenshots (.png). A picture
// holds some things that are new on every run: session ids, temporary
// directories, clock times, a spinner's frame. Copy masks those in the text pictures with
// placeholders of the same length, so no column moves, and then copies a
// picture only if it differs from the committed one. A browser picture
// differs only if some pixel does by more than the anti-aliasing of a
// glyph edge, which Chromium varies by a level or two run to run.
//
// Invariants: a mask rule replaces only text that no two runs share, and
// keeps its length (in runes); what is not masked is copied as the test
// wrote it. A committed picture no test wrote is reported, never deleted
// silently. Only the pictures directly in the committed folder are the
// tests': a folder in it (docs/screenshots/before, pictures kept for
// comparison that no test takes) is neither compared nor reported.
package screens
