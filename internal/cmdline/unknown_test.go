package cmdline

import (
	"flag"
	"reflect"
	"testing"
)

func scanFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("p", "", "")
	fs.String("prompt", "", "")
	fs.String("m", "", "")
	fs.Bool("y", false, "")
	fs.Bool("debug", false, "")
	return fs
}

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Scanned
	}{
		{[]string{"rn", "-p", "hi"}, Scanned{Words: []string{"rn"}, Given: []string{"p"}}},
		{[]string{"-m", "flash", "fix", "-y", "the", "bug"}, Scanned{Words: []string{"fix", "the", "bug"}, Given: []string{"m", "y"}}},
		{[]string{"--promt", "hi", "--modle=x", "--promt"}, Scanned{Words: []string{"hi"}, Unknown: []string{"promt", "modle"}}},
		{[]string{"--prompt=x", "-debug=false", "-", "--", "-y", "--bogus"}, Scanned{Words: []string{"-", "-y", "--bogus"}, Given: []string{"prompt", "debug"}}},
		{[]string{"-h", "---x", "-=y"}, Scanned{Words: []string{"---x", "-=y"}, Given: []string{"h"}}},
		{[]string{"-p"}, Scanned{Given: []string{"p"}}}, // the flag package says its value is missing
	} {
		if got := Scan(scanFlags(), tc.args); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Scan(%q) = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}

func TestUnknownArguments(t *testing.T) {
	known := []string{"p", "prompt", "m", "model", "y", "yolo", "output-format"}
	for _, tc := range []struct {
		unknown []string
		want    string
	}{
		{nil, ""},
		{[]string{"promt"}, "Unknown argument: promt. Did you mean --prompt?"},
		{[]string{"bogus"}, "Unknown argument: bogus"},
		{[]string{"P"}, "Unknown argument: P. Did you mean -p?"},
		{[]string{"promt", "modle"}, "Unknown arguments: promt, modle. Did you mean --prompt for promt, --model for modle?"},
		{[]string{"bogus", "outputformat"}, "Unknown arguments: bogus, outputformat. Did you mean --output-format for outputformat?"},
	} {
		if got := UnknownArguments(tc.unknown, known); got != tc.want {
			t.Errorf("UnknownArguments(%q) = %q, want %q", tc.unknown, got, tc.want)
		}
	}
}
