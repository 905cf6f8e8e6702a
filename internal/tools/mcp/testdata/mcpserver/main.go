// Command mcpserver is an MCP server for gemini-ls's tests, built with the
// same SDK as the client. It speaks on stdin and stdout.
//
//	mcpserver [-fail-at-start] [-extra NAME] [-resources | -broken-resources | -unreadable-resources] [-resource URI] [-grow]
//
// Its tools: echo, add, image, resource, fail (an error result), crash
// (the process exits), spawn (starts a child that sleeps, and says its pid),
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
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pixel is a 1×1 PNG.
var pixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to echo"`
}

type addArgs struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	failAtStart := flag.Bool("fail-at-start", false, "write to stderr and exit 2 before the handshake")
	extra := flag.String("extra", "", "also offer a tool with this name, echoing its name")
	resources := flag.Bool("resources", false, "offer two resources")
	brokenResources := flag.Bool("broken-resources", false, "declare resources, and fail to list them")
	unreadableResources := flag.Bool("unreadable-resources", false, "offer two resources, and fail to read them")
	extraResource := flag.String("resource", "", "also offer a text resource, named extra, at this URI")
	grow := flag.Bool("grow", false, "offer grow, which adds a tool")
	flag.Parse()
	if *failAtStart {
		fmt.Fprintln(os.Stderr, "mcpserver: cannot open the database")
		os.Exit(2)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpserver", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return text("Echo: " + a.Message), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(a.A + a.B)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "image", Description: "Returns a picture."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red pixel"},
				&mcp.ImageContent{MIMEType: "image/png", Data: pixel},
			}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "resource", Description: "Returns resources."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///blob.bin", Blob: []byte{1, 2, 3}}},
				&mcp.ResourceLink{URI: "file:///manual.pdf", Name: "manual.pdf", Title: "The manual"},
			}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "crash", Description: "Exits the server."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcpserver: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "spawn", Description: "Starts a child process that sleeps."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			child := exec.Command("sleep", "300")
			if err := child.Start(); err != nil {
				return nil, nil, err
			}
			return text(strconv.Itoa(child.Process.Pid)), nil, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{
		{Name: "name", Description: "who to greet", Required: true},
		{Name: "style", Description: "how"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text := "Greet " + req.Params.Arguments["name"]
		if style := req.Params.Arguments["style"]; style != "" {
			text += " in a " + style + " way"
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text + "."}}}}, nil
	})
	server.AddPrompt(&mcp.Prompt{Name: "status"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Report the status."}}}}, nil
	})
	var slow slowCalls
	server.AddTool(&mcp.Tool{Name: "slow", Description: "Sleeps, then says whether another slow call ran meanwhile.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"ms": map[string]any{"type": "integer"}, "tag": map[string]any{"type": "string"}},
	}}, slow.handle)
	if *extra != "" {
		name := *extra
		server.AddTool(&mcp.Tool{Name: name, Description: "Says its name.", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("I am " + name), nil
			})
	}
	if *grow {
		addGrow(server)
	}
	switch {
	case *resources:
		addResources(server, nil)
	case *brokenResources:
		addResources(server, map[string]string{"resources/list": "the catalogue is offline"})
	case *unreadableResources:
		addResources(server, map[string]string{"resources/read": "the archive is offline"})
	}
	if *extraResource != "" {
		server.AddResource(&mcp.Resource{URI: *extraResource, Name: "extra"}, readText)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// addGrow offers grow, which adds grown and answers only once the
// server has told its client that its tools changed: the SDK sends that
// a moment after the change, and a client must read it before the
// answer to see the change the call made.
func addGrow(server *mcp.Server) {
	announced := make(chan struct{}, 1)
	server.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "notifications/tools/list_changed" {
				select {
				case announced <- struct{}{}:
				default:
				}
			}
			return res, err
		}
	})
	server.AddTool(&mcp.Tool{Name: "grow", Description: "Adds the tool grown.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			server.AddTool(&mcp.Tool{Name: "grown", Description: "Was added by grow.", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("grown here"), nil
				})
			select {
			case <-announced:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return text("grew"), nil
		})
}

// addResources offers the test's two resources; a method failing names
// fails with its error instead.
func addResources(server *mcp.Server, failing map[string]string) {
	server.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes", Description: "The team's notes.", MIMEType: "text/plain"}, readText)
	server.AddResource(&mcp.Resource{URI: "db://users", Name: "users"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/x-sqlite3", Blob: []byte{1, 2, 3}}}}, nil
		})
	if len(failing) > 0 {
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if why, ok := failing[method]; ok {
					return nil, errors.New(why)
				}
				return next(ctx, method, req)
			}
		})
	}
}

// slowCalls are the slow calls in progress, each with whether another
// ran beside it: a test sees calls overlap without timing them.
type slowCalls struct {
	mu      sync.Mutex
	running map[*bool]bool
}

func (s *slowCalls) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		MS int `json:"ms"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, err
	}
	overlapped := new(bool)
	s.mu.Lock()
	if s.running == nil {
		s.running = map[*bool]bool{}
	}
	for other := range s.running {
		*other, *overlapped = true, true
	}
	s.running[overlapped] = true
	s.mu.Unlock()
	select {
	case <-time.After(time.Duration(args.MS) * time.Millisecond):
	case <-ctx.Done():
	}
	s.mu.Lock()
	delete(s.running, overlapped)
	result := fmt.Sprintf("overlapped: %v; arguments: %s", *overlapped, req.Params.Arguments)
	s.mu.Unlock()
	return text(result), nil
}

// readText answers resources/read with a text naming the URI read.
func readText(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "contents of " + req.Params.URI}}}, nil
}
