package settings

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readOutsideTheStruct are the keys the catalogue marks implemented that
// no field of Settings holds, and what reads them instead.
func readOutsideTheStruct() map[string]string {
	return map[string]string{
		"$schema":            "a pointer to the JSON schema: nothing to read",
		"tools.approvalMode": "migrateLegacy moves it to general.defaultApprovalMode",
		"experimental.codebaseInvestigatorSettings": "migrateAgentSettings moves it to agents.overrides",
		"experimental.cliHelpAgentSettings":         "migrateAgentSettings moves it to agents.overrides",
		"security.folderTrust.enabled":              "DecideTrust reads it from the files, before Load (trust.go)",
	}
}

// structKeys are the dotted keys Settings reads, from its json tags: a
// field is a key where the catalogue has one (an object of free names,
// such as mcpServers, is one key), else its struct's fields are; a map
// the catalogue looks into (hooks) reads every key below it. leaf is
// called for a field that is neither a catalogue key nor an object of
// its, which the catalogue lacks.
func structKeys(t reflect.Type, prefix string, keys map[string]support, parents map[string]bool, found map[string]bool, missing func(string)) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case hasKey(keys, key):
			found[key] = true
		case ft.Kind() == reflect.Struct && parents[key]:
			structKeys(ft, key, keys, parents, found, missing)
		case ft.Kind() == reflect.Map && parents[key]:
			for k := range keys {
				if strings.HasPrefix(k, key+".") {
					found[k] = true
				}
			}
		default:
			missing(key)
		}
	}
}

func hasKey(keys map[string]support, key string) bool { _, ok := keys[key]; return ok }

// Every key Settings reads is one the catalogue marks implemented, and
// every key it marks implemented is read: by a field of Settings, or by
// what readOutsideTheStruct names. The same for an MCP server's fields.
func TestCatalogueIsWhatSettingsReads(t *testing.T) {
	c := newCatalogue()
	found := map[string]bool{}
	structKeys(reflect.TypeFor[Settings](), "", c.keys, c.parents, found, func(key string) {
		t.Errorf("Settings reads %s, which the catalogue lacks: add it, implemented", key)
	})
	outside := readOutsideTheStruct()
	for _, key := range slices.Sorted(maps.Keys(c.keys)) {
		read := found[key]
		_, elsewhere := outside[key]
		switch {
		case c.keys[key] == implemented && !read && !elsewhere:
			t.Errorf("the catalogue marks %s implemented, but no field of Settings reads it", key)
		case c.keys[key] == notImplemented && read:
			t.Errorf("Settings reads %s, but the catalogue marks it notImplemented", key)
		case elsewhere && (read || c.keys[key] != implemented):
			t.Errorf("readOutsideTheStruct names %s, which is read by the struct or not implemented", key)
		}
	}
	mcpType := reflect.TypeFor[MCPServer]()
	fields := map[string]bool{}
	for i := range mcpType.NumField() {
		name, _, _ := strings.Cut(mcpType.Field(i).Tag.Get("json"), ",")
		fields[name] = true
		if c.mcp[name] != implemented {
			t.Errorf("MCPServer reads %s, which mcpServerFields does not mark implemented", name)
		}
	}
	for name, s := range c.mcp {
		if s == implemented && !fields[name] {
			t.Errorf("mcpServerFields marks %s implemented, but MCPServer does not read it", name)
		}
	}
}

// Every key the catalogue marks notImplemented has a reason in
// NotReadKeys, once, and NotReadKeys names no other key.
func TestEveryUnreadKeyHasAReason(t *testing.T) {
	c := newCatalogue()
	want := map[string]bool{}
	for key, s := range c.keys {
		if s == notImplemented {
			want[key] = true
		}
	}
	for field, s := range c.mcp {
		if s == notImplemented {
			want["mcpServers.*."+field] = true
		}
	}
	seen := map[string]bool{}
	for _, group := range NotReadKeys() {
		if group.Why == "" || len(group.Keys) == 0 {
			t.Errorf("a group without a reason or keys: %+v", group)
		}
		for _, key := range group.Keys {
			switch {
			case seen[key]:
				t.Errorf("%s has two reasons", key)
			case !want[key]:
				t.Errorf("NotReadKeys gives a reason for %s, which the catalogue does not mark notImplemented: remove it", key)
			}
			seen[key] = true
		}
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if !seen[key] {
			t.Errorf("%s is notImplemented with no reason in NotReadKeys", key)
		}
	}
}
