// Package outfile reads a telemetry outfile (telemetry.outfile) the way
// Gemini CLI 0.61's own integration rig reads the one 0.61 writes
// (packages/test-utils/src/test-rig.ts: _readAndParseTelemetryLog,
// readToolLogs, readHookLogs, readMetric): the file is cut into JSON
// objects at each "}\n{", each object parsed on its own, and what does not
// parse skipped; a log record's attributes are one object under
// "attributes", metrics are under "scopeMetrics". Keys are matched exactly,
// as JavaScript matches them. Tests hold gemini-ls's outfile to it, so
// that whatever reads 0.61's file reads gemini-ls's.
//
// Invariants: reading never fails on a record it cannot parse (the rig
// skips those too); nothing here writes.
package outfile
