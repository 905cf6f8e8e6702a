// Package bounded remembers up to a bound, forgetting the oldest first.
//
// A server remembers things for a client that may never come back for
// them: the ids of sessions it let go of, what a parked session is
// opened again with. A client that opens sessions without end must not
// grow that memory without end, so each such memory is a Map with a
// limit: putting one more entry than the limit forgets the one put
// longest ago.
//
// Invariants: a Map never holds more than its limit; every operation
// costs O(1); the entry forgotten is always the least recently put.
package bounded
