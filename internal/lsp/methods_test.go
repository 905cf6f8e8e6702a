package lsp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docMessage is one method of protocol.md's "Who sends what" table.
type docMessage struct {
	kind      string // "request", "notification"
	direction string // "client → server", "server → client", "both ways"
}

var kindWords = map[kind]string{requestKind: "request", notificationKind: "notification"}

var directionWords = map[direction]string{clientToServer: "client → server", serverToClient: "server → client", bothWays: "both ways"}

// whoSendsWhat parses protocol.md's message table: each row names its
// methods in backquotes, and the commands of workspace/executeCommand in
// parentheses after it.
func whoSendsWhat(t *testing.T, doc string) (map[string]docMessage, []string) {
	t.Helper()
	_, table, ok := strings.Cut(doc, "### Who sends what\n")
	if !ok {
		t.Fatal(`protocol.md has no "### Who sends what" section`)
	}
	table, _, _ = strings.Cut(table, "\n\n\n")
	table, _, _ = strings.Cut(table, "\n#")
	backquoted := regexp.MustCompile("`([^`]+)`")
	parenthesized := regexp.MustCompile(`\([^)]*\)`)
	messages := map[string]docMessage{}
	var commands []string
	for line := range strings.SplitSeq(table, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `") || len(cells) != 6 {
			continue
		}
		// What is in parentheses is a remark, or the commands.
		var remarks []string
		names := parenthesized.ReplaceAllStringFunc(cells[1], func(r string) string {
			remarks = append(remarks, r)
			return ""
		})
		m := docMessage{kind: strings.TrimSpace(cells[2]), direction: strings.TrimSpace(cells[3])}
		for _, match := range backquoted.FindAllStringSubmatch(names, -1) {
			if _, dup := messages[match[1]]; dup {
				t.Errorf("protocol.md lists %s twice", match[1])
			}
			messages[match[1]] = m
		}
		if strings.Contains(names, "`workspace/executeCommand`") {
			for _, match := range backquoted.FindAllStringSubmatch(strings.Join(remarks, ""), -1) {
				commands = append(commands, match[1])
			}
		}
	}
	if len(messages) == 0 {
		t.Fatal("protocol.md's message table lists no method")
	}
	return messages, commands
}

func readProtocolDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// protocol.md's message table lists every method of the table, with its
// kind and direction, and nothing else; every gemini/* method the document
// names is in the table; and the commands it lists are the server's.
func TestProtocolDocMatchesTheMethodTable(t *testing.T) {
	doc := readProtocolDoc(t)
	listed, commands := whoSendsWhat(t, doc)
	declared := map[string]method{}
	for _, m := range protocolMethods() {
		if _, dup := declared[m.name]; dup {
			t.Errorf("%s is declared twice", m.name)
		}
		declared[m.name] = m
		d, ok := listed[m.name]
		if !ok {
			t.Errorf("%s is not in protocol.md's message table", m.name)
			continue
		}
		if want := (docMessage{kindWords[m.sig.kind], directionWords[m.dir]}); d != want {
			t.Errorf("protocol.md lists %s as a %s, %s; the table declares a %s, %s", m.name, d.kind, d.direction, want.kind, want.direction)
		}
	}
	for name := range listed {
		if _, ok := declared[name]; !ok {
			t.Errorf("protocol.md lists %s, which the method table does not declare", name)
		}
	}
	undeclared := map[string]bool{}
	for _, match := range regexp.MustCompile("`(gemini/[A-Za-z]+)`").FindAllStringSubmatch(doc, -1) {
		if _, ok := declared[match[1]]; !ok && !undeclared[match[1]] {
			undeclared[match[1]] = true
			t.Errorf("protocol.md documents %s, which the method table does not declare", match[1])
		}
	}
	if !slices.Equal(commands, commandNames()) {
		t.Errorf("protocol.md lists the commands %q; the server executes %q", commands, commandNames())
	}
	for _, c := range commandNames() {
		if !strings.Contains(doc, "\n### `"+c+"`\n") {
			t.Errorf("protocol.md has no section for the command %s", c)
		}
	}
}

// Every method the server sends (a string literal given to call, askUser,
// notifyClient or the connection's Call and Notify) is declared as sent,
// with its kind; and every method declared as sent is sent somewhere.
func TestSentMethodsAreDeclared(t *testing.T) {
	sent := sentInSource(t)
	for name, k := range sent {
		m := declaredMethod(name)
		switch {
		case m == nil:
			t.Errorf("the server sends %s, which the method table does not declare", name)
		case m.dir == clientToServer:
			t.Errorf("the server sends %s, declared client → server", name)
		case m.sig.kind != k:
			t.Errorf("the server sends %s as a %s, declared a %s", name, kindWords[k], kindWords[m.sig.kind])
		}
	}
	for _, m := range protocolMethods() {
		if _, ok := sent[m.name]; m.dir != clientToServer && !ok {
			t.Errorf("%s is declared as sent, but the server never sends it", m.name)
		}
	}
}

func declaredMethod(name string) *method {
	for _, m := range protocolMethods() {
		if m.name == name {
			return &m
		}
	}
	return nil
}

// sentInSource finds the methods the package's code sends, by kind.
func sentInSource(t *testing.T) map[string]kind {
	t.Helper()
	senders := map[string]kind{
		"call": requestKind, "askUser": requestKind, "Call": requestKind, "send": requestKind,
		"notifyClient": notificationKind, "Notify": notificationKind,
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]kind{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch f := call.Fun.(type) {
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			case *ast.Ident:
				fn = f.Name
			}
			k, ok := senders[fn]
			if !ok {
				return true
			}
			for _, arg := range call.Args {
				if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					name, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					sent[name] = k
					break
				}
			}
			return true
		})
	}
	if len(sent) == 0 {
		t.Fatal("found no method sent in the package's source")
	}
	return sent
}

// The results of gemini-ls's requests and commands are types of their own,
// never a map or an untyped value, so their JSON is declared in one place;
// only workspace/executeCommand answers whatever its command does, and
// gemini/update's params are one of the closed set of update kinds.
func TestResultsAreTyped(t *testing.T) {
	untyped := func(typ reflect.Type) bool {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		return typ != reflect.TypeFor[update]() && (typ.Kind() == reflect.Map || typ.Kind() == reflect.Interface)
	}
	for _, m := range protocolMethods() {
		if untyped(m.sig.params) {
			t.Errorf("%s's params are %s", m.name, m.sig.params)
		}
		if m.sig.kind == requestKind && m.name != "workspace/executeCommand" && untyped(m.sig.result) {
			t.Errorf("%s's result is %s", m.name, m.sig.result)
		}
	}
	for _, c := range serverCommands() {
		if untyped(c.result) {
			t.Errorf("%s's result is %s", c.name, c.result)
		}
	}
}
