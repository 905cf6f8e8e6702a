package mcptest

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
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pixel is a 1×1 PNG.
var pixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

type noArgs struct{}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// ServeStdio is the stdio MCP server of gemini-ls's tests, as
// testdata/mcpserver runs it (its flags, args, are documented there): it
// answers on stdin and stdout until stdin ends, then exits the process.
// A test binary that copies itself under the name mcpserver and calls it
// when run by that name (TestMain) has the server without a Go toolchain,
// which Windows test machines lack.
func ServeStdio(args []string) {
	f := parseStdioFlags(args)
	if f.sleep > 0 {
		time.Sleep(f.sleep)
		os.Exit(0)
	}
	if f.failAtStart {
		fmt.Fprintln(os.Stderr, "mcpserver: cannot open the database")
		os.Exit(2)
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "mcpserver", Version: "1"}, f.options())
	if f.onlyResources {
		addOnlyResources(server)
	} else {
		addContentTools(server)
		addProcessTools(server)
		addPrompts(server)
		var slow slowCalls
		server.AddTool(&sdk.Tool{Name: "slow", Description: "Sleeps, then says whether another slow call ran meanwhile.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{"ms": map[string]any{"type": "integer"}, "tag": map[string]any{"type": "string"}},
		}}, slow.handle)
		f.addOptional(server)
		if f.tasks {
			book := newTaskBook()
			book.Finish()
			if err := book.install(server); err != nil {
				log.Fatal(err)
			}
		}
	}
	if f.record != "" {
		// Last: the outermost middleware, which sees every request.
		recordMethods(server, f.record)
	}
	if err := server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// options declares the capabilities -declare names on top of those the
// SDK infers from what the server offers.
func (f stdioFlags) options() *sdk.ServerOptions {
	if f.declare == "" {
		return nil
	}
	caps := &sdk.ServerCapabilities{}
	for _, c := range strings.Split(f.declare, ",") {
		switch c {
		case "tools":
			caps.Tools = &sdk.ToolCapabilities{}
		case "prompts":
			caps.Prompts = &sdk.PromptCapabilities{}
		case "resources":
			caps.Resources = &sdk.ResourceCapabilities{}
		default:
			log.Fatalf("mcpserver: -declare %q: a capability is tools, prompts or resources", c)
		}
	}
	return &sdk.ServerOptions{Capabilities: caps}
}

// addOnlyResources offers the test's two resources and nothing else: a
// tools or prompts request is answered "Method not found", as a server
// built on the TypeScript SDK without those handlers answers it (the Go
// SDK's server answers an empty list).
func addOnlyResources(server *sdk.Server) {
	addResources(server, nil)
	server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if strings.HasPrefix(method, "tools/") || strings.HasPrefix(method, "prompts/") {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			return next(ctx, method, req)
		}
	})
}

// recordMethods appends the method of every request the server receives
// to the file at path, one a line, so that a test sees what a client
// asked for.
func recordMethods(server *sdk.Server, path string) {
	server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				return nil, fmt.Errorf("recording the request: %w", err)
			}
			_, werr := fmt.Fprintln(f, method)
			if err := errors.Join(werr, f.Close()); err != nil {
				return nil, fmt.Errorf("recording the request: %w", err)
			}
			return next(ctx, method, req)
		}
	})
}

// stdioFlags are ServeStdio's flags.
type stdioFlags struct {
	tasks               bool
	failAtStart         bool
	extra               string
	resources           bool
	brokenResources     bool
	unreadableResources bool
	extraResource       string
	grow                bool
	sleep               time.Duration
	onlyResources       bool
	declare             string
	record              string
}

func parseStdioFlags(args []string) stdioFlags {
	var f stdioFlags
	flags := flag.NewFlagSet("mcpserver", flag.ExitOnError)
	flags.BoolVar(&f.failAtStart, "fail-at-start", false, "write to stderr and exit 2 before the handshake")
	flags.StringVar(&f.extra, "extra", "", "also offer a tool with this name, echoing its name")
	flags.BoolVar(&f.resources, "resources", false, "offer two resources")
	flags.BoolVar(&f.brokenResources, "broken-resources", false, "declare resources, and fail to list them")
	flags.BoolVar(&f.unreadableResources, "unreadable-resources", false, "offer two resources, and fail to read them")
	flags.StringVar(&f.extraResource, "resource", "", "also offer a text resource, named extra, at this URI")
	flags.BoolVar(&f.grow, "grow", false, "offer grow, which adds a tool")
	flags.DurationVar(&f.sleep, "sleep", 0, "only sleep this long, then exit: the child spawn starts")
	flags.BoolVar(&f.onlyResources, "only-resources", false, "offer two resources and no tools or prompts, answering their requests Method not found")
	flags.StringVar(&f.declare, "declare", "", "declare these capabilities (tools,prompts,resources) whatever is offered")
	flags.StringVar(&f.record, "record", "", "append the method of every request received to this file")
	flags.BoolVar(&f.tasks, "tasks", false, "offer build and wait, run as tasks (the tasks extension), build completing once confirmed")
	_ = flags.Parse(args)
	return f
}

// addContentTools offers the tools answering each kind of content: text,
// an image, resources, and an error.
func addContentTools(server *sdk.Server) {
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echoes the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return textResult("Echo: " + a.Message), nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, any, error) {
			return textResult(strconv.Itoa(a.A + a.B)), nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "image", Description: "Returns a picture."},
		func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a red pixel"},
				&sdk.ImageContent{MIMEType: "image/png", Data: pixel},
			}}, nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "resource", Description: "Returns resources."},
		func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///blob.bin", Blob: []byte{1, 2, 3}}},
				&sdk.ResourceLink{URI: "file:///manual.pdf", Name: "manual.pdf", Title: "The manual"},
			}}, nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the disk is full"}}}, nil, nil
		})
}

// addProcessTools offers crash, which exits the server, and spawn, which
// starts a child that outlives the call.
func addProcessTools(server *sdk.Server) {
	sdk.AddTool(server, &sdk.Tool{Name: "crash", Description: "Exits the server."},
		func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcpserver: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "spawn", Description: "Starts a child process that sleeps."},
		func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			// Itself, sleeping: the server runs where there is no sleep
			// program (Windows).
			self, err := os.Executable()
			if err != nil {
				return nil, nil, err
			}
			child := exec.Command(self, "-sleep", "300s")
			if err := child.Start(); err != nil {
				return nil, nil, err
			}
			return textResult(strconv.Itoa(child.Process.Pid)), nil, nil
		})
}

// addPrompts offers greet, with arguments, and status, without.
func addPrompts(server *sdk.Server) {
	server.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{
		{Name: "name", Description: "who to greet", Required: true},
		{Name: "style", Description: "how"},
	}}, func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		text := "Greet " + req.Params.Arguments["name"]
		if style := req.Params.Arguments["style"]; style != "" {
			text += " in a " + style + " way"
		}
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text + "."}}}}, nil
	})
	server.AddPrompt(&sdk.Prompt{Name: "status"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Report the status."}}}}, nil
	})
}

// addOptional offers what the flags ask for.
func (f stdioFlags) addOptional(server *sdk.Server) {
	if f.extra != "" {
		name := f.extra
		server.AddTool(&sdk.Tool{Name: name, Description: "Says its name.", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("I am " + name), nil
			})
	}
	if f.grow {
		addGrow(server)
	}
	switch {
	case f.resources:
		addResources(server, nil)
	case f.brokenResources:
		addResources(server, map[string]string{"resources/list": "the catalogue is offline"})
	case f.unreadableResources:
		addResources(server, map[string]string{"resources/read": "the archive is offline"})
	}
	if f.extraResource != "" {
		server.AddResource(&sdk.Resource{URI: f.extraResource, Name: "extra"}, readText)
	}
}

// addGrow offers grow, which adds grown and answers only once the
// server has told its client that its tools changed: the SDK sends that
// a moment after the change, and a client must read it before the
// answer to see the change the call made.
func addGrow(server *sdk.Server) {
	announced := make(chan struct{}, 1)
	server.AddSendingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
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
	server.AddTool(&sdk.Tool{Name: "grow", Description: "Adds the tool grown.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			server.AddTool(&sdk.Tool{Name: "grown", Description: "Was added by grow.", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return textResult("grown here"), nil
				})
			select {
			case <-announced:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return textResult("grew"), nil
		})
}

// addResources offers the test's two resources; a method failing names
// fails with its error instead.
func addResources(server *sdk.Server, failing map[string]string) {
	server.AddResource(&sdk.Resource{URI: "file:///notes.txt", Name: "notes", Description: "The team's notes.", MIMEType: "text/plain"}, readText)
	server.AddResource(&sdk.Resource{URI: "db://users", Name: "users"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/x-sqlite3", Blob: []byte{1, 2, 3}}}}, nil
		})
	if len(failing) > 0 {
		server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
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

func (s *slowCalls) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
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
	return textResult(result), nil
}

// readText answers resources/read with a text naming the URI read.
func readText(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "contents of " + req.Params.URI}}}, nil
}
