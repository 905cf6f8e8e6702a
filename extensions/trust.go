package extensions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// trustLevel reports whether s is a value trustedFolders.json may hold.
func trustLevel(s string) bool {
	switch s {
	case "TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST":
		return true
	}
	return false
}

// TrustFolder records in the trusted folders file at path (as
// settings.DecideTrust reads it) that folder is a trusted folder, as
// Gemini CLI's install does when the user says yes: its other rules kept
// in their order, the file JSON indented by two spaces, private (0o600).
// A file that is not a JSON object of trust levels is left as it is, and
// the error says so, as Gemini CLI refuses to update it.
func TrustFolder(path, folder string) error {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return err
	}
	before, err := safefile.Read(path, maxFileSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var keys []string
	values := map[string]string{}
	if len(bytes.TrimSpace(before)) > 0 {
		if keys, values, err = orderedLevels(before); err != nil {
			return fmt.Errorf("Cannot update trusted folders because the configuration file is invalid: %s: %v. Please fix the file manually before trying to update it.", path, err)
		}
	}
	if _, ok := values[abs]; !ok {
		keys = append(keys, abs)
	}
	values[abs] = "TRUST_FOLDER"
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kd, _ := marshalIndent(k)
		vd, _ := marshalIndent(values[k])
		fmt.Fprintf(&b, "\n  %s: %s", kd, vd)
	}
	if len(keys) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.Replace(path, b.Bytes(), 0o600)
}

// orderedLevels reads a trusted folders file: its paths in order, and
// their levels; an entry of another value is an error.
func orderedLevels(data []byte) ([]string, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("Trusted folders file is not a valid JSON object.")
	}
	var keys []string
	values := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k := fmt.Sprint(t)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		s, ok := v.(string)
		if !ok || !trustLevel(s) {
			return nil, nil, fmt.Errorf("Invalid trust level %v for path %q", v, k)
		}
		if _, seen := values[k]; !seen {
			keys = append(keys, k)
		}
		values[k] = s
	}
	return keys, values, nil
}
