package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeJSON decodes with json.Number for numbers, so that integers beyond 2^53
// survive a trip through the fake server, and refuses trailing data.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("apitest: an object decoded from JSON does not encode: %v", err)) // cannot happen: it came from JSON
	}
	return b
}

func deepCopy(o object) object {
	var c map[string]any
	if err := decodeJSON(marshal(o), &c); err != nil {
		panic(fmt.Sprintf("apitest: copy: %v", err))
	}
	return object(c)
}

// mergePatch applies a JSON merge patch (RFC 7386): objects merge member by member,
// null deletes, anything else replaces. Strategic merge patches go through it too;
// they differ only for lists of objects with a merge key (containers by name),
// which the fake replaces whole.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}
