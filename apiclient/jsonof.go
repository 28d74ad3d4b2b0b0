package apiclient

import "encoding/json"

// JSONOf returns the JSON that v stands for: []byte and json.RawMessage as they
// are (already JSON), anything else as json.Marshal writes it. It is the one
// "value or bytes" rule of the module: what Create, Update and Apply send, what
// controller/status compares, what apitest stores.
func JSONOf(v any) ([]byte, error) {
	switch b := v.(type) {
	case []byte:
		return b, nil
	case json.RawMessage:
		return b, nil
	}
	return json.Marshal(v)
}
