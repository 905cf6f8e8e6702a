package langclient

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The test binary, run with fakeModeEnv set, is a tiny language server
// (runFakeServer) whose misbehaviour the mode names, writing the methods
// it receives to the file fakeLogEnv names, if any.
const (
	fakeModeEnv = "GEMINI_LS_TEST_FAKE_LSP"
	fakeLogEnv  = "GEMINI_LS_TEST_FAKE_LSP_LOG"
)

// Modes of the fake server.
const (
	fakeOK       = "ok"       // answers as a server should
	fakeStubborn = "stubborn" // ignores shutdown and exit
	fakeIndexing = "indexing" // begins a progress, never ends it
	fakeGarbage  = "garbage"  // answers a request with what is no frame
	fakeGiant    = "giant"    // answers a request with a frame of 1 GiB
	fakeDie      = "die"      // exits at a request
	fakeSilent   = "silent"   // never answers a request
	fakeMute     = "mute"     // never answers, not even initialize
)

// fakeServers is a Manager's configuration running the fake for files
// named *.fake.
func fakeServers(exe string) map[string]ServerConfig {
	return map[string]ServerConfig{"fake": {Cmd: []string{exe}, Filetypes: []string{"fake"}, RootMarkers: []string{"fake.root"}}}
}

func runFakeServer(mode string) int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	var logFile *os.File
	if name := os.Getenv(fakeLogEnv); name != "" {
		f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return 1
		}
		logFile = f
		fmt.Fprintln(logFile, "pid", os.Getpid())
	}
	write := func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		body, _ := json.Marshal(m)
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
		out.Flush()
	}
	docs := map[string]string{}
	for {
		body, err := readFrame(in, defaultMaxMessage)
		if err != nil {
			return 2
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
			Params struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Text    string `json:"text"`
					Version int    `json:"version"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
				Changes []struct {
					URI  string `json:"uri"`
					Type int    `json:"type"`
				} `json:"changes"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return 2
		}
		if logFile != nil && m.Method == "" {
			// An answer to one of the fake's requests.
			answer := string(m.Result)
			if m.Error != nil {
				answer = "error " + strconv.FormatInt(m.Error.Code, 10)
			}
			fmt.Fprintln(logFile, "answer", string(m.ID), answer)
			continue
		}
		if logFile != nil {
			line := m.Method
			switch m.Method {
			case "textDocument/didOpen", "textDocument/didChange":
				line += " " + strconv.Itoa(m.Params.TextDocument.Version)
			case "workspace/didChangeWatchedFiles":
				for _, c := range m.Params.Changes {
					line += " " + strconv.Itoa(c.Type) + ":" + uriPath(c.URI)
				}
			}
			fmt.Fprintln(logFile, line)
		}
		isRequest := m.ID != nil
		switch {
		case mode == fakeMute:
			continue
		case m.Method == "initialize":
			if mode == fakeIndexing {
				// Before initialize's answer, so it is read before any
				// question can be asked.
				write(map[string]any{"method": "$/progress", "params": map[string]any{
					"token": "load", "value": map[string]any{"kind": "begin", "title": "Loading packages"}}})
			}
			if mode == fakeOK {
				// The requests a server makes of its client, before
				// initialize's answer, so they are answered before
				// the client's first question reaches the fake.
				write(map[string]any{"id": "config", "method": "workspace/configuration", "params": map[string]any{"items": []any{map[string]any{"section": "a"}, map[string]any{"section": "b"}}}})
				write(map[string]any{"id": "progress", "method": "window/workDoneProgress/create", "params": map[string]any{"token": "t"}})
				write(map[string]any{"id": "register", "method": "client/registerCapability", "params": map[string]any{"registrations": []any{}}})
				write(map[string]any{"id": "edit", "method": "workspace/applyEdit", "params": map[string]any{"edit": map[string]any{}}})
				fmt.Fprintln(os.Stderr, "fake: started")
			}
			write(map[string]any{"id": m.ID, "result": map[string]any{
				"capabilities": map[string]any{"renameProvider": map[string]any{"prepareProvider": true}}}})
			continue
		case m.Method == "textDocument/didOpen" || m.Method == "textDocument/didChange":
			text := m.Params.TextDocument.Text
			if len(m.Params.ContentChanges) > 0 {
				text = m.Params.ContentChanges[0].Text
			}
			docs[m.Params.TextDocument.URI] = text
			first, _, _ := strings.Cut(text, "\n")
			write(map[string]any{"method": "textDocument/publishDiagnostics", "params": map[string]any{
				"uri": m.Params.TextDocument.URI, "version": m.Params.TextDocument.Version,
				"diagnostics": []any{map[string]any{
					"range":    map[string]any{"start": map[string]any{"line": 0, "character": 2}, "end": map[string]any{"line": 0, "character": 3}},
					"severity": 2, "code": "F1", "source": "fake", "message": "first line: " + first,
				}},
			}})
			continue
		case m.Method == "exit" && mode != fakeStubborn:
			return 0
		case !isRequest:
			continue
		}
		switch mode {
		case fakeStubborn, fakeSilent:
			if m.Method == "shutdown" || mode == fakeSilent {
				continue
			}
		case fakeGarbage:
			fmt.Fprint(out, "this is not a header\r\n\r\n")
			out.Flush()
			continue
		case fakeGiant:
			fmt.Fprint(out, "Content-Length: 1073741824\r\n\r\n")
			out.Flush()
			continue
		case fakeDie:
			fmt.Fprintln(os.Stderr, "fake: dying on", m.Method)
			return 3
		}
		switch m.Method {
		case "textDocument/hover":
			// The text the server holds, to show what was synced.
			write(map[string]any{"id": m.ID, "result": map[string]any{"contents": docs[m.Params.TextDocument.URI]}})
		case "textDocument/prepareRename":
			write(map[string]any{"id": m.ID, "error": map[string]any{"code": codeRequestFailed, "message": "no identifier here"}})
		default:
			write(map[string]any{"id": m.ID, "result": nil})
		}
	}
}
