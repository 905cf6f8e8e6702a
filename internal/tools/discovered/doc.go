// Package discovered offers the tools a project declares itself, as Gemini
// CLI's settings spell it: tools.discoveryCommand prints FunctionDeclarations
// (run once, when the agent starts), and tools.callCommand NAME runs one,
// with the call's JSON arguments on stdin, printing its result. Both run in
// the workspace root. A discovered tool is named discovered_tool_NAME, as in
// Gemini CLI, so it never clashes with a built-in; it always asks the user
// first (Always Allow covers that tool for the session), since it runs a
// program the model cannot see into.
package discovered
