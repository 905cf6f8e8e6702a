// Package spelling finds what a mistyped word meant among the words that
// would have been understood: a command, a flag, a settings key. It
// suggests; it never decides what the word was: its callers say "did you
// mean …?" and go no further.
//
// Invariants: words are compared without regard to case, by the
// restricted Damerau-Levenshtein distance (an insertion, a deletion, a
// substitution or two neighbours swapped each count one), over runes; a
// suggestion is never further from the word than its callers' bound, and
// of candidates equally near the first given wins, so the same line
// always gets the same answer.
package spelling
