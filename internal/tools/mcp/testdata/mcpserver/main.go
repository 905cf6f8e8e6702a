// Command mcpserver is an MCP server for gemini-ls's tests, built with the
// same SDK as the client. It speaks on stdin and stdout.
//
//	mcpserver [-fail-at-start] [-extra NAME] [-resources | -broken-resources | -unreadable-resources] [-resource URI] [-grow] [-declare CAPS] [-record FILE]
//	mcpserver -only-resources [-declare CAPS] [-record FILE]
//	mcpserver -sleep DURATION
//
// Its tools: echo, add, image, resource, fail (an error result), crash
// (the process exits), spawn (starts a child that sleeps, itself with
// -sleep, and says its pid),
// slow (sleeps ms milliseconds, then says its arguments and whether another
// slow call ran while it did; its schema lets any other argument through).
// Its prompts: greet (name required, style optional) and status (none).
// With -resources it offers two resources, file:///notes.txt (named and
// described, its contents text) and db://users (named, its contents
// binary); with -broken-resources it declares resources but fails to
// list them; with -unreadable-resources it lists them but fails to read
// them. With -resource URI it offers one more resource, named extra, at
// URI, its contents text. With -grow it offers grow, which adds a tool, grown, and
// answers once it has sent notifications/tools/list_changed.
//
// With -only-resources it offers the two resources of -resources and
// nothing else: it declares only resources, and answers a tools or
// prompts request "Method not found", as a server built on the
// TypeScript SDK without those handlers does. -declare CAPS declares
// those capabilities (a comma-separated list of tools, prompts,
// resources) whatever it offers. -record FILE appends the method of
// every request it receives to FILE, one a line.
//
// The server is mcptest.ServeStdio, which the tests of internal/tools/mcp
// run in their own binary.
package main

import (
	"os"

	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

func main() { mcptest.ServeStdio(os.Args[1:]) }
