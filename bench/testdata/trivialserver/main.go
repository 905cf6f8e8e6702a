// Command trivialserver is the yardstick of BenchmarkSpawnToInitialize: the
// least a Go program that speaks LSP on stdio does. It answers initialize
// with a fixed result of the size of gemini-ls's, any other request with
// null, and exits on exit. Its start is the Go runtime's and little else.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

const initializeResult = `{"capabilities":{"positionEncoding":"utf-16","textDocumentSync":{"openClose":true,"change":2,"save":{"includeText":false}},"codeActionProvider":{"codeActionKinds":["quickfix","refactor.rewrite",""]},"executeCommandProvider":{"commands":["gemini.prompt","gemini.cancel"]},"experimental":{"gemini":{"protocolVersion":1}}},"serverInfo":{"name":"trivialserver","version":"1"}}`

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		body, err := readFrame(in)
		if err != nil {
			if err != io.EOF {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch {
		case msg.Method == "exit":
			return
		case msg.ID == nil: // a notification
		case msg.Method == "initialize":
			write(msg.ID, initializeResult)
		default:
			write(msg.ID, "null")
		}
	}
}

func readFrame(in *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, _ := strings.Cut(line, ":")
		if strings.EqualFold(name, "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(in, body)
	return body, err
}

func write(id json.RawMessage, result string) {
	body := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
	fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(body), body)
}
