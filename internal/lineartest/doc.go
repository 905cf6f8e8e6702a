// Package lineartest checks, in tests, that a parser of what a repository
// or a model controls costs no more than a linear reading of it. The
// parser reads an adversarial input of 1 MiB (the size a skill, an
// agent's file or a context file may have) and of a quarter of that: a
// linear parser takes about 4 times as long on the larger, a quadratic
// one 16 times. Each size is timed in the processor time of the thread
// parsing it, at its best of three runs, so that a busy machine does not
// make a linear parser look quadratic; and a parser done with 1 MiB in a
// few milliseconds passes at once. Under the race detector, whose work
// swamps the parser's, times are not compared: a 64 KiB input must only
// be done within the hang bound; `make test-linear`, part of `make
// test`, runs every Test...IsLinear again without it.
package lineartest
