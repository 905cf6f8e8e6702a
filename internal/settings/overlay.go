package settings

import (
	"errors"
	"fmt"
)

// With returns s with overlay merged over it, by the rules the files merge
// by (merge.go): for the editor's initializationOptions, and later the
// settings of workspace/didChangeConfiguration, which come after every
// file. overlay is spelled as settings.json is ({"model": {"name": …}}),
// and also takes the flat keys gemini-ls's initializationOptions had
// before: "model" as a string (model.name) and "approvalMode"
// (general.defaultApprovalMode), where "" chooses nothing. Unknown keys
// are ignored. Unlike a file, an overlay may choose yolo.
//
// A value of the wrong type, or not allowed, is an error naming the key,
// and s is returned unchanged: the editor's user is told, and nothing of
// the files is lost.
func (s Settings) With(overlay map[string]any) (Settings, error) {
	if len(overlay) == 0 {
		return s, nil
	}
	obj, err := overlayObject(overlay)
	if err != nil {
		return s, err
	}
	if problems := checkValues(obj, nil, true); len(problems) > 0 {
		return s, errors.Join(problems...)
	}
	var out Settings
	if err := fromMap(mergeLayers(toMap(s), obj), &out); err != nil {
		return s, err // a value of the wrong type, which is the overlay's
	}
	out.given, out.unread, out.projectHooks = s.given, s.unread, s.projectHooks
	// The administrator's keys are the system settings file's alone.
	out.Admin, out.AdminPolicyPaths = s.Admin, s.AdminPolicyPaths
	return out.withAdminLocks(), nil
}

// overlayObject is overlay with the flat keys moved to their places, as a
// new object.
func overlayObject(overlay map[string]any) (map[string]any, error) {
	obj := clone(overlay).(map[string]any)
	if mode, ok := obj["approvalMode"]; ok {
		s, isString := mode.(string)
		if !isString && mode != nil {
			return nil, fmt.Errorf("approvalMode must be a string, not %s", jsonKind(mustMarshal(mode)))
		}
		delete(obj, "approvalMode")
		if _, nested := lookup(obj, "general.defaultApprovalMode"); !nested && s != "" {
			set(obj, "general.defaultApprovalMode", s)
		}
	}
	if name, ok := obj["model"].(string); ok {
		delete(obj, "model")
		if name != "" {
			set(obj, "model.name", name)
		}
	}
	return obj, nil
}
