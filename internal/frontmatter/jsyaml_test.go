package frontmatter

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// jsYAMLScalars are plain scalars and what js-yaml 4.1.0 (Gemini CLI's
// YAML reader) loads each as, asked of node with js-yaml's load("k: "+s):
// a number as JavaScript's String writes it, "date", or "string:" and the
// text.
var jsYAMLScalars = map[string]string{
	".5": "0.5", "0b101": "5", "-0x10": "-16", "+0x10": "16", "-0o17": "-15",
	"1_000": "1000", "-0b1_1": "-3", "0x_1F": "31", "._5": "0.5", ".5e3": "500",
	"1_0.5": "10.5", "00": "0", "010": "10", "+0": "0", "-0": "0", "1.": "1",
	"0xFFFFFFFFFFFFFFFFFF": "4.722366482869645e+21", "9007199254740993": "9007199254740992",
	"1e400": "Infinity", "-.inf": "-Infinity", ".NaN": "NaN", "0.1_2e3": "120", "+1_0": "10",
	"+.5": "string:+.5", "-.5": "string:-.5", "1_": "string:1_", "_1": "string:_1",
	"0o8": "string:0o8", "0b2": "string:0b2", "0x": "string:0x", "1e_3": "string:1e_3",
	"2024-01-01": "date", "2024-1-1 10:00:00": "date", "2024-01-01T10:00:00Z": "date",
	"2024-1-1": "string:2024-1-1", "12:30": "string:12:30",
}

// shown is v as the node script below shows a loaded scalar.
func shown(v Value) string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case Number:
		if v.Num == 0 {
			if math.Signbit(v.Num) {
				return "-0"
			}
			return "0"
		}
		return jsjson.FormatNumber(v.Num)
	case Date:
		return "date"
	case String:
		return "string:" + v.Text
	}
	return v.Kind.String()
}

// Plain scalars are typed as js-yaml types them: the answers node gave,
// hard-checked here (TestScalarsAsJSYAML asks it again).
func TestScalarsTypedAsJSYAML(t *testing.T) {
	for scalar, want := range jsYAMLScalars {
		v, err := Parse("k: " + scalar)
		if err != nil {
			t.Errorf("Parse(k: %s): %v", scalar, err)
			continue
		}
		if got := shown(v.Fields["k"]); got != want {
			t.Errorf("k: %s is %s, js-yaml reads %s", scalar, got, want)
		}
	}
}

const jsYAMLLoad = `
const yaml = require(process.argv[2]);
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const show = v => v === null ? 'null' : v instanceof Date ? 'date'
  : typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v))
  : typeof v === 'boolean' ? String(v) : typeof v === 'string' ? 'string:' + v : typeof v;
process.stdout.write(JSON.stringify(docs.map(d => {
  try { return show(yaml.load(d).k); } catch (e) { return 'error'; }
})));
`

// Plain scalars, the table's and random ones of the characters numbers,
// timestamps and their neighbours are made of, are typed as js-yaml 4.1.0
// types them, run by node. js-yaml is installed from the committed
// lockfile: npm ci --prefix internal/frontmatter/testdata/jsyaml.
func TestScalarsAsJSYAML(t *testing.T) {
	node := platformtest.Tool(t, "node")
	module, err := filepath.Abs(filepath.Join("testdata", "jsyaml", "node_modules", "js-yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(module); err != nil {
		// make test-go installs it; CI must compare, not skip.
		if os.Getenv("CI") != "" {
			t.Fatalf("js-yaml is not installed (npm ci --prefix internal/frontmatter/testdata/jsyaml, which make test-go runs): %v", err)
		}
		t.Skipf("js-yaml is not installed (npm ci --prefix internal/frontmatter/testdata/jsyaml); TestScalarsTypedAsJSYAML holds its answers: %v", err)
	}
	var scalars []string
	for s := range jsYAMLScalars {
		scalars = append(scalars, s)
	}
	r := rand.New(rand.NewPCG(95, 2))
	const alphabet = "0123456789_+-.xobeEaAfFinNT:Z "
	for range 3000 {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		scalars = append(scalars, strings.TrimSpace(string(b)))
	}
	for range 300 {
		scalars = append(scalars, randomTimestamp(r))
	}
	docs := make([]string, len(scalars))
	for i, s := range scalars {
		docs[i] = "k: " + s
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "load.js")
	if err := os.WriteFile(script, []byte(jsYAMLLoad), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, module)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("node's answer %q: %v", out, err)
	}
	compared := 0
	for i, doc := range docs {
		v, err := Parse(doc)
		if err != nil || want[i] == "error" || v.Kind != Map {
			continue // YAML the two parsers read differently: not typing
		}
		compared++
		if got := shown(v.Fields["k"]); got != want[i] {
			t.Errorf("%s: %s, js-yaml reads %s", doc, got, want[i])
		}
	}
	if compared < len(docs)/2 {
		t.Errorf("only %d of %d documents read by both", compared, len(docs))
	}
}

func randomTimestamp(r *rand.Rand) string {
	d := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	s := d(4) + "-" + d(1+r.IntN(2)) + "-" + d(1+r.IntN(2))
	if r.IntN(2) == 0 {
		s += []string{"T", "t", " ", "  "}[r.IntN(4)] + d(1+r.IntN(2)) + ":" + d(2) + ":" + d(2)
		s += []string{"", ".", ".5", ".123"}[r.IntN(4)]
		s += []string{"", "Z", " Z", "+1", "-01:30", " +05"}[r.IntN(6)]
	}
	return s
}
