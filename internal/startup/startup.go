// Package startup releases what only gemini-ls's start-up needed.
//
// Before main runs, Go initialises every package linked in (about 300 of
// them: genai's Google Cloud auth, gRPC and protobuf registrations, the
// MCP and ACP SDKs, OpenTelemetry…) and the runtime registers every
// interface table. That touches code in nearly every part of the
// executable, and Linux maps each page fault of a file with the 64 KiB
// around it (fault-around), so start-up leaves about 9 MiB of the
// executable's 13 MiB of code resident, most of which a run never
// executes again (docs/benchmarks.md, issue 44), and as much of its
// read-only data (type descriptors, strings, function tables) that a run
// never reads again (issue 89).
package startup

// ReleaseExecutablePages asks the kernel to unmap the pages of the
// executable's code and read-only data from this process (Linux;
// elsewhere it does nothing). They are clean copies of the executable
// file, so nothing is lost: what runs later maps its pages back from the
// page cache, a minor fault each. The read-only data of a
// position-independent executable is kept: the loader relocated some of
// it in place.
//
// It does nothing while a debugger is attached: its breakpoints are
// written into private copies of code pages, which unmapping would drop.
// Call it when a stage that touched code the rest will not run is over
// (start-up; a headless run's building); it takes about half a
// millisecond, so off the critical path (a goroutine).
func ReleaseExecutablePages() { releaseExecutablePages() }
