package webhook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// A mutating webhook answers with an RFC 6902 JSON patch to the object the
// API server sent. The change to patch is the one the user's Default made to
// a Go value: the JSON of the value before it (before) and after it (after).
// The patch is applied to the object sent (raw), which may hold more than the
// Go type: members the type does not declare, a zero value the type would
// write and the object left out. So the patch is made by walking the three
// together, and it names only what Default changed:
//
//   - a member Default added, or changed where raw has no object to go into,
//     is an "add" (which, on an object, also replaces);
//   - a member Default removed is a "remove", where raw has it;
//   - where before, after and raw are all objects, or all lists of one
//     length, the walk goes into them; anything else that changed is a
//     "replace" of the whole value.
//
// Members the type does not declare are in neither before nor after, and no
// operation touches them: a Default cannot lose what it cannot see. (A
// webhook that patched raw against the Go value's JSON would remove them.)

// patchOp is one operation. Value is its JSON, absent for "remove".
type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// jsonPatch is the patch that makes the change from before to after on raw,
// all three JSON documents; nil when nothing changed.
func jsonPatch(raw, before, after []byte) ([]byte, error) {
	var r, b, a any
	for _, d := range []struct {
		data []byte
		into *any
	}{{raw, &r}, {before, &b}, {after, &a}} {
		dec := json.NewDecoder(bytes.NewReader(d.data))
		dec.UseNumber() // numbers compared as written, never rounded
		if err := dec.Decode(d.into); err != nil {
			return nil, err
		}
	}
	var ops []patchOp
	walk(&ops, "", r, b, a)
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}

// missing stands for a member one side does not have.
type missing struct{}

// walk adds to ops the operations that make before's change to after on raw,
// at path, where raw has a value.
func walk(ops *[]patchOp, path string, raw, before, after any) {
	if reflect.DeepEqual(before, after) {
		return
	}
	rm, rok := raw.(map[string]any)
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if rok && bok && aok {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range bm {
				if !yield(k) {
					return
				}
			}
			for k := range am {
				if _, dup := bm[k]; !dup && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			p := path + "/" + escapePointer(k)
			av, inAfter := am[k]
			rv, inRaw := rm[k]
			var bv any = missing{}
			if v, ok := bm[k]; ok {
				bv = v
			}
			switch {
			case inAfter && reflect.DeepEqual(bv, av):
				// unchanged: whatever raw has here stays
			case !inAfter && inRaw:
				*ops = append(*ops, patchOp{Op: "remove", Path: p})
			case !inAfter:
			case inRaw:
				walk(ops, p, rv, bv, av)
			default:
				*ops = append(*ops, patchOp{Op: "add", Path: p, Value: mustJSON(av)})
			}
		}
		return
	}
	rl, rok := raw.([]any)
	bl, bok := before.([]any)
	al, aok := after.([]any)
	if rok && bok && aok && len(rl) == len(bl) && len(bl) == len(al) {
		for i := range al {
			walk(ops, path+"/"+strconv.Itoa(i), rl[i], bl[i], al[i])
		}
		return
	}
	*ops = append(*ops, patchOp{Op: "replace", Path: path, Value: mustJSON(after)})
}

// escapePointer writes a member name as a JSON pointer's token (RFC 6901):
// "~" as "~0", "/" as "~1" — an annotation key "example.com/x" is
// "example.com~1x".
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// mustJSON is v's JSON; v came from decoding JSON, so it always encodes.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("webhook: a decoded JSON value does not encode: " + err.Error())
	}
	return b
}
