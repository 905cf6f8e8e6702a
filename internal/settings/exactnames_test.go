package settings

import (
	"reflect"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson/jsjsontest"
)

// readsAsGeminiCLI is what Gemini CLI reads of a settings file's members
// after JSON.parse: each by its exact name, a missing one null.
const readsAsGeminiCLI = `
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const own = (v, k) => v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, k) ? v[k] : undefined;
const n = v => v === undefined ? null : v;
process.stdout.write(JSON.stringify(docs.map(text => {
  const o = JSON.parse(text);
  const servers = {};
  const m = own(o, 'mcpServers');
  for (const k of Object.keys(m ?? {})) {
    const s = m[k];
    servers[k] = {command: n(own(s, 'command')), args: n(own(s, 'args')), excludeTools: n(own(s, 'excludeTools')), trust: own(s, 'trust') === true};
  }
  return {
    exclude: n(own(own(o, 'tools'), 'exclude')),
    allowed: n(own(own(o, 'tools'), 'allowed')),
    approvalMode: own(own(o, 'general'), 'defaultApprovalMode') ?? 'default', // Gemini CLI's default
    servers,
  };
})));
`

// A settings file is read by exact member names, the last of a name
// winning, as Gemini CLI's JSON.parse reads it: "excludetools" does not
// undo "excludeTools", nor "Tools" add to "tools".
func TestSettingsMembersReadAsNode(t *testing.T) {
	docs := []string{
		`{"mcpServers":{"s":{"command":"srv","excludeTools":["run_shell_command"],"excludetools":[]}}}`,
		`{"mcpServers":{"s":{"command":"srv","ExcludeTools":["run_shell_command"]}}}`,
		`{"tools":{"exclude":["run_shell_command"],"Exclude":[]}}`,
		`{"tools":{"exclude":["run_shell_command"]},"Tools":{"exclude":[]}}`,
		`{"tools":{"exclude":["a"]},"tools":{"allowed":["b"]}}`,
		`{"tools":{"exclude":["a"],"exclude":["b"],"EXCLUDE":["c"]}}`,
		`{"mcpServers":{"s":{"command":"a","Command":"b","TRUST":true}}}`,
		`{"mcpServers":{"s":{"command":"a","args":["x"]},"s":{"command":"b"}}}`,
		`{"mcpServers":{"s":{"command":"a"}},"MCPSERVERS":{"t":{"command":"b"}}}`,
		`{"general":{"defaultApprovalMode":"auto_edit"},"General":{"defaultApprovalMode":"plan"}}`,
		`{"general":{"DefaultApprovalMode":"plan"}}`,
		`{"\u0074ools":{"exclude":["escaped"]}}`,
	}
	want := nodeReads(t, docs)
	for i, doc := range docs {
		home, root := t.TempDir(), t.TempDir()
		writeSettings(t, root, doc)
		s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
		if err != nil {
			t.Errorf("Load(%s): %v", doc, err)
			continue
		}
		servers := map[string]any{}
		for name, srv := range s.MCPServers {
			servers[name] = map[string]any{"command": nilIfEmpty(srv.Command), "args": list(srv.Args), "excludeTools": list(srv.ExcludeTools), "trust": srv.Trust}
		}
		got := map[string]any{
			"exclude": list(s.Tools.Exclude), "allowed": list(s.Tools.Allowed),
			"approvalMode": s.General.DefaultApprovalMode, "servers": servers,
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("Load(%s) reads\n%v\nGemini CLI (node's JSON.parse) reads\n%v", doc, got, want[i])
		}
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// list is l as JSON reads it back: nil is null.
func list(l []string) any {
	if l == nil {
		return nil
	}
	out := []any{}
	for _, s := range l {
		out = append(out, s)
	}
	return out
}

func nodeReads(t *testing.T, docs []string) []any {
	t.Helper()
	return jsjsontest.NodeReads(t, readsAsGeminiCLI, docs)
}
